#!/usr/bin/env python3
"""Derive src/results/rules/gitleaks.json from the Gitleaks rule data a crate ships.

Input: `builtin_rules.json` of the `keyspoor` crate (0.1.3, Apache-2.0), which carries Gitleaks
v8.30.1's `config/gitleaks.toml` (MIT, see LICENSE-gitleaks) transformed to JSON. Get it with
cargo's ordinary download (any throwaway package depending on `keyspoor = "=0.1.3"`, then
`cargo fetch`); it lands under `~/.cargo/registry/src/*/keyspoor-0.1.3/src/`.

Output: only what the screener uses. The global allowlist that the input repeats in every rule
is kept once; rules that only apply to certain file paths are dropped (a Unity result has no
file path). Nothing else is changed: ids, patterns, keywords, entropy thresholds, secret groups,
allowlist regexes and stopwords are copied as they are.

Usage: python3 derive.py <builtin_rules.json> > gitleaks.json
"""
import hashlib
import json
import sys


def main() -> None:
    src = sys.argv[1]
    raw = open(src, "rb").read()
    rules = json.loads(raw)["rules"]
    # The allowlist every rule shares (the first one of each rule, identical across rules).
    shared = [a for a in rules[0]["allowlist"] if a["target"] == "secret" and a["regexes"]][0]
    shared_regexes = shared["regexes"]
    out_rules = []
    dropped = []
    for r in rules:
        if r["path"]:
            dropped.append(r["id"])
            continue
        allow = {"secret": [], "match": [], "line": []}
        stopwords = []
        for a in r["allowlist"]:
            if a["paths"] and not a["regexes"] and not a["stopwords"]:
                continue  # path-only allowlists cannot apply to a result
            if a["target"] == "secret" and a["regexes"] == shared_regexes:
                continue
            allow[a["target"]].extend(a["regexes"])
            stopwords.extend(a["stopwords"])
        entry = {
            "id": r["id"],
            "pattern": r["pattern"],
            "keywords": sorted(set(k.lower() for k in r["keywords"])),
        }
        if r["secret_group"] is not None:
            entry["group"] = r["secret_group"]
        if r["min_entropy"]:
            entry["entropy"] = r["min_entropy"]
        for target, regexes in allow.items():
            if regexes:
                entry["allow_" + target] = regexes
        if stopwords:
            entry["stopwords"] = sorted(set(s.lower() for s in stopwords))
        out_rules.append(entry)
    doc = {
        "source": {
            "ruleset": "Gitleaks v8.30.1 config/gitleaks.toml (MIT, Zachary Rice)",
            "upstream_commit": "83d9cd684c87d95d656c1458ef04895a7f1cbd8e",
            "via": "crate keyspoor 0.1.3, src/builtin_rules.json",
            "via_sha256": hashlib.sha256(raw).hexdigest(),
            "dropped_path_only_rules": dropped,
        },
        "allow_secret": shared_regexes,
        "rules": out_rules,
    }
    json.dump(doc, sys.stdout, indent=0, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
