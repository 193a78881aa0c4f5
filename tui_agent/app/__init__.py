"""The Textual front end: the app, its event bridge and theme loading (textual is imported only here, in screens/ and widgets/)."""
