"""Where replies come from: the ``ProviderClient`` protocol, its registry and the mock."""
