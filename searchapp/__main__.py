from searchapp.cli.main import main

raise SystemExit(main())
