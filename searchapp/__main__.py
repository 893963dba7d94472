from searchapp.cli.fast import main

raise SystemExit(main())
