"""Config files: what every game's config is built on (:mod:`.base`), the provider settings
every game shares (:mod:`.providers`) and the loader that reads, resolves and validates a
file for the game it names (:mod:`.loader`). Each game's own models live in its package."""
