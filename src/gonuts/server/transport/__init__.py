"""The transport: HTTP middleware, uvicorn guards, the WebSocket session that dispatches each
message type to the feature that registered it, and the pages. It imports the kernel, no feature.
"""
