#!/usr/bin/env python3
"""Copies docs/examples/protocol_example.py into docs/protocol.md, after its example marker.

ProtocolExampleTests fails when the two differ; run this after editing the example.
"""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
document = root / "docs" / "protocol.md"
example = (root / "docs" / "examples" / "protocol_example.py").read_text(encoding="utf-8")
marker = "<!-- example: docs/examples/protocol_example.py -->\n```python\n"
text = document.read_text(encoding="utf-8")
start = text.find(marker)
if start < 0:
    sys.exit(f"{document}: no line '<!-- example: docs/examples/protocol_example.py -->' followed by a python fence")
body = start + len(marker)
end = text.find("\n```\n", body)
if end < 0:
    sys.exit(f"{document}: the example's code fence is not closed")
document.write_text(text[:body] + example + text[end + 1:], encoding="utf-8")
print(f"{document.relative_to(root)}: example updated")
