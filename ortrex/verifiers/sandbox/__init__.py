"""The sandbox: fork server, supervisor, isolation layers, the capture harness and the warm pool."""
