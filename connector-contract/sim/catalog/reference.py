"""Parse the facts of tool-parameters.md (§2, §4) and connector-protocol.md (§13).

This module only reads the two reference documents and returns plain Python data.
`generate.py` turns that data into the committed vectors and the simulator's catalog data file.
Nothing here is prose for the catalog: names, types, numbers, regexes and flags only.
"""

import json
import re

SCALARS = {"string", "integer", "number", "boolean", "object", "null"}


class ParseError(Exception):
    pass


def _section(text, start_heading, end_prefix):
    start = text.index(start_heading)
    end = text.index(end_prefix, start + len(start_heading))
    return text[start:end]


def parse_patterns(md):
    """§2.2: NAME -> exact regex text."""
    sec = _section(md, "### 2.2 Named patterns", "### 2.3")
    out = {}
    for m in re.finditer(r"\* `(RX_[A-Z_]+)`:.*?```text\n(.*?)\n\s*```", sec, re.S):
        out[m.group(1)] = m.group(2).strip()
    return out


def parse_fragments(md):
    """§2.3: NAME -> exact JSON schema fragment (without description)."""
    sec = _section(md, "### 2.3 Named schema fragments", "## 3. Tool overview")
    out = {}
    for m in re.finditer(r"\* `([A-Z_]+)` — .*?```json\n(.*?)\n\s*```", sec, re.S):
        out[m.group(1)] = json.loads(m.group(2).strip())
    return out


def _split_top(text, sep=", "):
    """Split on `sep` at bracket depth 0."""
    parts, depth, cur, i = [], 0, "", 0
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if depth == 0 and text.startswith(sep, i):
            parts.append(cur)
            cur = ""
            i += len(sep)
            continue
        cur += ch
        i += 1
    parts.append(cur)
    return [p.strip() for p in parts]


def type_schema(t, fragments):
    """Translate the JSON-type column notation (§2.1) into a schema."""
    t = t.strip()
    m = re.fullmatch(r"`([A-Z_]+)`", t)
    if m:
        return json.loads(json.dumps(fragments[m.group(1)]))
    if t == "any":
        return {}
    if t in SCALARS:
        return {"type": t}
    m = re.fullmatch(r"\[(\w+), null\]", t)
    if m:
        return {"type": [m.group(1), "null"]}
    m = re.fullmatch(r"array of (\w+)", t)
    if m:
        inner = m.group(1)
        return {"type": "array", "items": {} if inner == "any" else {"type": inner}}
    m = re.fullmatch(r"(oneOf|anyOf)\((.*)\)", t)
    if m:
        return {m.group(1): [type_schema(b, fragments) for b in _split_top(m.group(2))]}
    raise ParseError(f"unknown type notation: {t!r}")


def _number(lit):
    return json.loads(lit)


def parse_constraints(cell, patterns):
    """Return (schema keywords, allow_null, default text or None, aliases)."""
    kw, allow_null, default, aliases = {}, False, None, []
    cell = cell.strip()
    if cell == "—":
        return kw, allow_null, default, aliases
    for seg in _split_top(cell, "; "):
        if seg.startswith("enum: "):
            kw["enum"] = [json.loads(v) for v in re.findall(r"`([^`]*)`", seg[6:])]
        elif seg.startswith("≥ "):
            kw["minimum"] = _number(seg[2:])
        elif seg.startswith("≤ "):
            kw["maximum"] = _number(seg[2:])
        elif seg.startswith("> "):
            kw["exclusiveMinimum"] = _number(seg[2:])
        elif seg.startswith("minItems "):
            kw["minItems"] = _number(seg[9:])
        elif seg.startswith("maxItems "):
            kw["maxItems"] = _number(seg[9:])
        elif seg.startswith("minLength "):
            kw["minLength"] = _number(seg[10:])
        elif seg.startswith("pattern "):
            name = seg[8:].strip().strip("`")
            kw["pattern"] = patterns[name]
        elif seg == "any keys":
            kw["additionalProperties"] = True
        elif seg == "properties: {}":
            kw["properties"] = {}
        elif seg == "explicit null accepted":
            allow_null = True
        elif seg.startswith("default "):
            default = seg[8:].strip()
        elif seg.startswith("alias "):
            aliases = re.findall(r"`([^`]*)`", seg)
        else:
            raise ParseError(f"unknown constraint segment: {seg!r} in {cell!r}")
    return kw, allow_null, default, aliases


def _parse_table(lines, patterns, fragments):
    rows = []
    for line in lines:
        cells = line.split(" | ")
        if len(cells) != 5:
            raise ParseError(f"table row with {len(cells)} cells: {line}")
        name = cells[0].lstrip("| ").strip().strip("`")
        type_text = cells[1].strip()
        req = cells[2].strip() == "yes"
        kw, allow_null, default, aliases = parse_constraints(cells[3], patterns)
        purpose = cells[4].rstrip(" |").strip()
        schema = type_schema(type_text, fragments)
        schema.update(kw)
        rows.append({
            "name": name,
            "type_text": type_text,
            "required": req,
            "schema": schema,          # final published form, without description
            "allow_null": allow_null,
            "default": default,
            "aliases": aliases,
            "purpose": purpose,
        })
    return rows


GROUP_RE = re.compile(
    r"^- (?:(exactly one of|at least one of|at most one of): (.*?)|"
    r"when `([^`]+)` is present, at least one of: (.*?))(?: — (.*))?$"
)
MODE = {"exactly one of": "exactly_one", "at least one of": "at_least_one",
        "at most one of": "at_most_one"}


def _parse_group(line):
    m = GROUP_RE.match(line)
    if not m:
        raise ParseError(f"bad group line: {line}")
    if m.group(1):
        mode = MODE[m.group(1)]
        terms = re.findall(r"`([^`]+)`", m.group(2))
    else:
        mode = "required_when"
        terms = [m.group(3)] + re.findall(r"`([^`]+)`", m.group(4))
    g = {"mode": mode, "terms": terms}
    meta = m.group(5)
    if meta:
        for part in _split_top(meta, ", error "):
            part = part.strip()
            if part.startswith("error "):
                part = part[6:]
            mm = re.fullmatch(r"path `([^`]+)`", part)
            if mm:
                g["path"] = mm.group(1)
                continue
            mm = re.fullmatch(r"`expected` = `([^`]+)`", part)
            if mm:
                g["expected"] = mm.group(1)
                continue
            mm = re.fullmatch(r"conflict code `([^`]+)`", part)
            if mm:
                g["conflict_code"] = mm.group(1)
                continue
            mm = re.fullmatch(r"missing code `([^`]+)`", part)
            if mm:
                g["missing_code"] = mm.group(1)
                continue
            raise ParseError(f"bad group metadata {part!r} in {line}")
    return g


def parse_tools(md):
    """§4: list of tools with tool-level and action schemas as parsed rows and groups."""
    patterns = parse_patterns(md)
    fragments = parse_fragments(md)
    sec = _section(md, "## 4. Per-tool parameter facts", "## 5. Verification")
    chunks = re.split(r"^### 4\.\d+ `([a-z_]+)`\n", sec, flags=re.M)[1:]
    tools = []
    for name, body in zip(chunks[0::2], chunks[1::2]):
        m = re.search(r"Title `([^`]+)` · (\d+) example\(s\) · (\d+) action\(s\) · C# class `([^`]+)`", body)
        if not m:
            raise ParseError(f"no title line for {name}")
        tool = {"name": name, "title": m.group(1), "examples": int(m.group(2)),
                "action_count": int(m.group(3)), "class": m.group(4), "actions": []}
        # Split into schema blocks: the tool-level block, then one per action.
        blocks = re.split(r"^\*\*(Tool-level schema|Input schema|Action `([a-z_]+)`)\*\*", body, flags=re.M)
        # blocks: [pre, label, action_name_or_None, text, label, ...]
        by_action = {}
        for i in range(1, len(blocks), 3):
            label, action, text = blocks[i], blocks[i + 1], blocks[i + 2]
            lines = text.split("\n")
            head = lines[0]
            table = [l for l in lines if l.startswith("| `")]
            group_lines = [l for l in lines if l.startswith("- ")]
            identical = re.search(r"^Parameters: identical to action `([a-z_]+)`", text, re.M)
            if table:
                params = _parse_table(table, patterns, fragments)
            elif identical:
                params = json.loads(json.dumps(by_action[identical.group(1)]["params"]))
            else:
                params = []
            groups = [_parse_group(l) for l in group_lines]
            if action is None:
                has_class = "no `Parameters` class" not in head
                tool["params"] = params
                tool["groups"] = groups
                tool["has_parameters_class"] = has_class
                declared = re.search(r"(\d+) param\(s\)", head)
                if declared and int(declared.group(1)) != len(params):
                    raise ParseError(f"{name}: declared {declared.group(1)} params, parsed {len(params)}")
            else:
                mc = re.search(r"parameter class (?:`([A-Za-z]+)`|none)", head)
                declared = re.search(r"; (\d+) parameter\(s\)", head)
                if declared and int(declared.group(1)) != len(params):
                    raise ParseError(f"{name}/{action}: declared {declared.group(1)} params, parsed {len(params)}")
                entry = {"name": action, "class": mc.group(1) if mc else None,
                         "params": params, "groups": groups}
                by_action[action] = entry
                tool["actions"].append(entry)
        if len(tool["actions"]) != tool["action_count"]:
            raise ParseError(f"{name}: {len(tool['actions'])} actions parsed, {tool['action_count']} declared")
        tools.append(tool)
    return tools


FLAG_WORDS = {"approval", "idempotent", "may_reload", "cancellable", "destructive-flag"}


def _parse_safety(text):
    text = text.strip()
    m = re.fullmatch(r"([a-z_]+)(?: \[([^\]]*)\])?", text)
    if not m:
        raise ParseError(f"bad safety text {text!r}")
    flags = [f.strip() for f in m.group(2).split(",")] if m.group(2) else []
    for f in flags:
        if f not in FLAG_WORDS:
            raise ParseError(f"unknown flag {f!r}")
    return {"risk": m.group(1), "flags": sorted(flags)}


def parse_inventory(protocol_md):
    """§13 table: profiles, tool-level safety, rules and per-action safety."""
    sec = _section(protocol_md, "## 13. Tool inventory", "## 14. Audit log")
    out = []
    for line in sec.split("\n"):
        m = re.match(r"^\| (\d+) \| `([a-z_]+)` \| ([^|]*) \| ([^|]*) \| ([^|]*) \| (\d+) \|$", line)
        if not m:
            continue
        name = m.group(2)
        profiles = [p.strip() for p in m.group(3).split(",")]
        tool_parts = m.group(4).split("<br>")
        tool_safety = _parse_safety(tool_parts[0])
        rules = []
        for r in tool_parts[1:]:
            mm = re.fullmatch(r"rule `([^`]+)`: when `([^`]+)` = (.+?) → (.+)", r.strip())
            if not mm:
                raise ParseError(f"bad rule {r!r}")
            rules.append({"operation": mm.group(1), "when": {mm.group(2): json.loads(mm.group(3))},
                          "safety": _parse_safety(mm.group(4))})
        actions = {}
        acell = m.group(5).strip()
        if not acell.startswith("—"):
            for part in acell.split("; "):
                mm = re.fullmatch(r"`([a-z_]+)` — (.+)", part.strip())
                if not mm:
                    raise ParseError(f"bad action safety {part!r}")
                actions[mm.group(1)] = _parse_safety(mm.group(2))
        if len(actions) != int(m.group(6)):
            raise ParseError(f"{name}: action count mismatch in §13")
        out.append({"name": name, "profiles": profiles, "safety": tool_safety,
                    "rules": rules, "actions": actions})
    return out


def parse_profile_sizes(protocol_md):
    sec = _section(protocol_md, "Profile membership, listed by profile:", "Notes on the inventory:")
    sizes = {}
    for m in re.finditer(r"^\| ([a-z]+) \((\d+)\) \|", sec, re.M):
        sizes[m.group(1)] = int(m.group(2))
    return sizes


EMPTY_DATA = {"properties": {}, "type": "object"}


def parse_outputs(results_md):
    """tool-results.md §2: (tool, action or '-') -> the published `data` schema, exactly.

    Each `####` block gives its schema as a JSON block after "Published `data`:" or as
    "identical to `<action>` above" (same tool); a multi-action tool's own schema is the inline
    "Tool-level `data` schema: `…`" line, an action-less tool's is its "tool-level call" block.
    """
    sec = _section(results_md, "## 2. Per tool and action", "## 3. Summary")
    out = {}
    tool = None
    block = None
    lines = sec.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^### 2\.\d+ `([a-z_]+)`", line)
        if m:
            tool, block = m.group(1), None
            i += 1
            continue
        m = re.match(r"^#### `([a-z_]+)` · (?:`([a-z_]+)`|tool-level call)", line)
        if m:
            if m.group(1) != tool:
                raise ParseError(f"block {line!r} outside its tool section")
            block = m.group(2) or "-"
            i += 1
            continue
        m = re.match(r"^Tool-level `data` schema: `(\{.*?\})`", line)
        if m and tool:
            out[(tool, "-")] = json.loads(m.group(1))
            i += 1
            continue
        if line.startswith("Published `data`:") and tool and block:
            rest = line[len("Published `data`:"):].strip()
            mm = re.match(r"identical to `([a-z_]+)` above", rest)
            if mm:
                out[(tool, block)] = json.loads(json.dumps(out[(tool, mm.group(1))]))
            elif lines[i + 1].strip() == "```json":
                out[(tool, block)] = json.loads(lines[i + 2])
                i += 3
            else:
                raise ParseError(f"unreadable output schema at {tool}/{block}: {line!r}")
            block = None
        i += 1
    return out
