"""What the library says about itself: status, the not-indexed list, explain, settings drift, ANN recall."""
