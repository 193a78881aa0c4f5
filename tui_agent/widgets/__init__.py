"""Widgets of the main screen: header, trace panes, token gauge, action pane, list of calls."""
