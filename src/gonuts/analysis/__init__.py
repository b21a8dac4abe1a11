"""Designer's analysis: simulate many games and measure seats, cards, scores and variants.

:mod:`~gonuts.analysis.simulate` plays chunks of games into mergeable tallies,
:mod:`~gonuts.analysis.run` runs the chunks (here, in processes or on Ray),
:mod:`~gonuts.analysis.summary` turns tallies into ``summary.json`` and
:mod:`~gonuts.analysis.report` draws the plots (matplotlib, the ``research`` extra) and the
self-contained HTML report. The command line is ``gonuts analyze``.
"""
