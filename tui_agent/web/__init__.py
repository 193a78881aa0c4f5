"""The web, as tools use it: the network guard and capped fetch, decoding, main text, rendering."""
