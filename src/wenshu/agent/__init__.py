"""The ask-data agent: state, pure step functions, thin LangGraph nodes, routing and the runner."""
