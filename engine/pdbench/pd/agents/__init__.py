"""Who plays: classic policies and LLM agents, behind one ``Agent`` protocol."""
