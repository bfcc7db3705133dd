"""The general assistant: one LangGraph agent around the data pipeline. A deterministic router sends
data questions straight to the pipeline and greetings to a direct answer; everything else enters an
agent <-> tools loop in which every step is one JSON object decoded under a schema built for that turn
(one of the few tools the host offered, with its arguments, or a final answer), validated, repaired
once, with MAX_STEPS and a graceful last step. The model never has to write free-form tool calls."""
