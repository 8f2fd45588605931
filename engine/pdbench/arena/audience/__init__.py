"""The audience page: people score blinded arena answers, 0..10, one at a time.

:mod:`.invites` issues the organiser's invites, one per voter, and says which voter a token
is; :mod:`.votes` appends a vote and counts the votes so far; :mod:`.ballot` reads the
answers a person may score and picks the next one; :mod:`.page` is the Streamlit page that
``pdbench audience <run_dir>`` serves. The page is the one writer of ``audience_votes.jsonl``;
the public-opinion scores are dbt models (``arena_audience_*``).
"""
