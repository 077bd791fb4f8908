"""The web table: `cardzoo serve` (needs the web extra: starlette, uvicorn)."""
