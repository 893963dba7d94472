"""What the library says about itself: status, explain, settings drift, ANN recall."""
