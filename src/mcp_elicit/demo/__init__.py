"""The showcase behind ``mcp-elicit demo`` (``make demo``)."""
