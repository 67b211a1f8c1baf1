#!/usr/bin/env python3
"""Validates LDtk project files against LDtk's published JSON schema (draft 7).

usage: validate.py SCHEMA.json FILE.ldtk...   exit 0 when every file is valid; errors printed.
Needs Debian's python3-jsonschema. JSON_SCHEMA.json beside this script is LDtk 1.5.3's schema
(MIT, see LICENSE here).
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1], encoding="utf-8"))
validator = jsonschema.Draft7Validator(schema)
invalid = 0
for path in sys.argv[2:]:
    errors = list(validator.iter_errors(json.load(open(path, encoding="utf-8"))))
    for e in errors[:10]:
        print(f"{path}: {'/'.join(str(p) for p in e.absolute_path)}: {e.message[:300]}")
    invalid += bool(errors)
print(f"{len(sys.argv) - 2 - invalid} of {len(sys.argv) - 2} files valid")
sys.exit(1 if invalid else 0)
