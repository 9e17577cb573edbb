"""The composition root: the `umpire` command line (and, later, the web page) wiring
`vision`, `calibration` and `rules` together."""
