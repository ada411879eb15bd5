"""Safety rule resolution (connector-contract/README.md section 3.5), derived independently.

The fallback is the named action's safety (matched case-insensitively), else the tool's. A tool
rule matches when every `when` entry's const deep-equals the argument (the action argument is
compared lowercased, as the Connector matches the router's canonical action). Among matching rules
the one with the most `when` keys wins; a tie between the best is an error. The winner's safety
replaces the fallback. The resolved safety carries no rules.
"""

SAFETY_KEYS = ["risk_class", "read_only", "destructive", "idempotent", "may_reload_domain",
               "requires_play_mode", "requires_confirmation", "reversible",
               "supports_cancellation", "side_effect_scope"]


def _plain(s):
    out = {k: s[k] for k in SAFETY_KEYS}
    out["rules"] = []
    return out


def _eq(a, b):
    # JSON deep equality without Python's 1 == True confusion.
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_eq(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    return a == b


def resolve(tool, action, params):
    fallback = tool["safety"]
    if action is not None:
        for a in tool["actions"]:
            if a["name"] == action.strip().lower() or action.strip().lower() in a["aliases"]:
                fallback = a["safety"]
                break
    matches = []
    for rule in tool["safety"]["rules"]:
        ok = True
        for param, cond in rule["when"].items():
            actual = params.get(param, _MISSING)
            if param == "action" and isinstance(actual, str):
                actual = actual.lower()
            if actual is _MISSING or not _eq(actual, cond["const"]):
                ok = False
                break
        if ok:
            matches.append(rule)
    if not matches:
        return ("ok", _plain(fallback))
    most = max(len(r["when"]) for r in matches)
    best = [r for r in matches if len(r["when"]) == most]
    if len(best) > 1:
        return ("error", "ambiguous")
    return ("ok", _plain(best[0]))


_MISSING = object()
