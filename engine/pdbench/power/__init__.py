"""Planning a study before paying for it (``pdbench power``): the paired sign-flip test and
Benjamini-Hochberg over simulated samples (:mod:`pdbench.power.sign_flip`), the search for the
size that reaches a target power (:mod:`pdbench.power.simulate`) and its words
(:mod:`pdbench.power.text`). Each game supplies the pool of per-replicate values the
simulation draws from (:mod:`pdbench.pd.power`, :mod:`pdbench.arena.power`)."""
