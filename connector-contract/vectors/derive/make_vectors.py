#!/usr/bin/env python3
"""Writes connector-contract/vectors/*.json from the rules in connector-contract/README.md.

Python standard library only, and no use of the Rust crate: these vectors exist to catch the crate
(and the simulator, and the adapter) disagreeing with the protocol text. Every documented vector
from the protocol is asserted here first, so the derivation is itself checked.

    python3 connector-contract/vectors/derive/make_vectors.py          # (re)write the files
    python3 connector-contract/vectors/derive/make_vectors.py --check  # fail if a file is stale
"""

import json
import os
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import catalog  # noqa: E402
import identity  # noqa: E402
import jsontext  # noqa: E402
import op_ids  # noqa: E402
import safety  # noqa: E402
import schema_examples  # noqa: E402
import task_ids  # noqa: E402
import tokens  # noqa: E402

OUT = os.path.dirname(HERE)

# ---------------------------------------------------------------------------------------------
# Documented vectors (connector-contract/README.md 1.2, 1.8, 3.8, 5.4, 9.2): the derivation must agree.

DOC_ARGS = {
    "{}": "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
    '{"action":"info"}': "sha256:7c3721cd1fb0b0551280f80624c364bd0edff4849d4ad9d648af8bd8204049b4",
    '{"html":"<tag>","number":1}':
        "sha256:12c9000af679f928aa1e1d14fb37044f55485f0be49dd3620f59004788e17595",
    '{"action":"close","path":"Assets/Scenes/Level2.unity"}':
        "sha256:13b4369de9a5f6e701c1fb7a404d920b43c0081476be668c3e91de215e8e7cd5",
}
DOC_PROJECT = "sha256:eddb71bd6dcc1509ea1fe8ad4aa23d4e01088ce758c86fe03005fd7107de2a99"
DOC_PROJECT_WIN = "sha256:8887cfa7ffea851e8381054cbf7e9d3d1a4074da77f38182aa05476d70d1511b"
DOC_SIG = "dRSeQ6P2Mbbtoui-0AiAgcsHsP5z9UTSfnhYRdozz_I"
DOC_PAYLOAD = ('{"version":1,"operation_id":"op_0123456789abcdef0123456789abcdef","tool":"scene",'
               '"action":"close","arguments_hash":"sha256:13b4369de9a5f6e701c1fb7a404d920b43c0081'
               '476be668c3e91de215e8e7cd5","risk_class":"destructive","project_id":"sha256:eddb71b'
               'd6dcc1509ea1fe8ad4aa23d4e01088ce758c86fe03005fd7107de2a99","expires_at_ms":1767225'
               '900000,"single_use":true}')


def check_documented():
    for text, h in DOC_ARGS.items():
        assert jsontext.sha256_prefixed(jsontext.arguments_canonical(text)) == h, text
    assert identity.heartbeat_file_name("/Users/me/Unity/MyGame") == "0f8a4cd2094360e3.json"
    assert identity.heartbeat_file_name("C:\\Users\\me\\Unity\\MyGame") == "47b9f61296f5ad0d.json"
    assert identity.project_id("/Users/me/Unity/MyGame", "unix") == DOC_PROJECT
    assert identity.project_id("C:\\Users\\me\\Unity\\MyGame", "windows") == DOC_PROJECT_WIN
    claims = json.loads(DOC_PAYLOAD)
    assert tokens.payload_json(claims) == DOC_PAYLOAD
    assert tokens.sign_text(bytes([1] * 32), DOC_PAYLOAD).split(".")[1] == DOC_SIG


# ---------------------------------------------------------------------------------------------
# project-identity.json

PATHS = [
    ("documented unix path", "/Users/me/Unity/MyGame", "unix", "Section 1.2 and 1.8 vectors."),
    ("documented windows path", "C:\\Users\\me\\Unity\\MyGame", "windows",
     "Section 1.2 and 1.8 vectors: backslashes and case kept for the file name, folded for the id."),
    ("unix trailing slash", "/Users/me/Unity/MyGame/", "unix",
     "Same project_id as the documented path. The Connector never publishes a trailing separator; "
     "the file name is of the string as given."),
    ("unix dot-dot and dot segments", "/Users/me/Unity/Other/../MyGame/./", "unix",
     "Cleaned lexically, never through the file system."),
    ("unix repeated separators", "//Users//me///Unity/MyGame", "unix", "Repeated slashes collapse."),
    ("unix surrounding whitespace", "  /Users/me/Unity/MyGame \t\n", "unix",
     "Whitespace is trimmed before anything else."),
    ("unix case is kept", "/Users/Me/Unity/MYGAME", "unix", "Only Windows folds case."),
    ("unix backslash is a separator", "/Users/me/Unity/My\\Game", "unix",
     "The Connector replaces '\\' with '/' on every OS and publishes that id; the Go client would "
     "not (section 1.8 edge case). We follow the Connector."),
    ("unix non-ascii", "/Users/Jos\u00e9/Unity/Sp\u00efel \u65e5\u672c", "unix",
     "UTF-8 bytes are hashed; no Unicode normalization."),
    ("windows trailing backslash and case", "C:\\Users\\Me\\Unity\\MyGame\\", "windows",
     "Same project_id as the documented windows path."),
    ("windows forward slashes", "C:/Users/me/Unity/MyGame", "windows",
     "Same project_id as the documented windows path."),
    ("windows dot-dot", "C:\\Users\\me\\Unity\\Other\\..\\MyGame", "windows",
     "Same project_id as the documented windows path."),
    ("windows dot-dot above the drive root", "C:\\Users\\..\\..\\..\\Game", "windows",
     "Cleaning never climbs above the volume root: c:/game."),
    ("windows UNC share", "\\\\Server\\Share\\Unity\\MyGame", "windows",
     "The UNC volume \\\\server\\share keeps its two leading separators: //server/share/unity/mygame."),
    ("windows non-ascii case folding", "D:\\\u00c9quipe\\\u00dcBER\\Spiel", "windows",
     "Lowercasing is Unicode-aware (invariant culture): \u00c9 -> \u00e9, \u00dc -> \u00fc."),
    ("windows word-final capital sigma", "C:\\Projects\\\u039f\u0394\u039f\u03a3", "windows",
     "Each character is lowered alone: a final \u03a3 becomes \u03c3, never the final form \u03c2."),
    ("windows dotted capital I", "C:\\\u0130stanbul\\Game", "windows",
     "\u0130 becomes a plain i, one character, without a combining dot: c:/istanbul/game."),
    ("windows letters outside the runtime's case table", "C:\\\u2c00\\\U00010400\\\uff21", "windows",
     "The runtime lowers U+0000-U+24CF and U+FF21 up only, one UTF-16 unit at a time: Glagolitic and "
     "Deseret capitals keep their case, the full-width A is lowered."),
]


def project_identity():
    out = []
    for name, path, flavor, note in PATHS:
        pid = identity.project_id(path, flavor)
        out.append({"name": name, "project_path": path, "flavor": flavor,
                    "expected_normalized": identity.normalize(path, flavor),
                    "expected_project_id": pid,
                    "expected_heartbeat_file": identity.heartbeat_file_name(path),
                    "expected_ledger_dir": identity.ledger_dir(pid), "note": note})
    return out


# ---------------------------------------------------------------------------------------------
# arguments-hash.json

ARGS = [
    ("documented: empty params", "{}", "Section 9.2."),
    ("documented: action info", '{"action":"info"}', "Section 9.2 and the 2.5 request example."),
    ("documented: html is not escaped", '{"number":1,"html":"<tag>"}',
     "Section 9.2 (the Go test fixture), keys given out of order."),
    ("documented: scene close", '{"path":"Assets/Scenes/Level2.unity","action":"close"}',
     "Section 9.2; the arguments_hash inside the section 5.4 token vector."),
    ("whitespace and layout do not count", '{\n  "action" : "info"\n}\r\n',
     "Same hash as 'documented: action info'."),
    ("nested objects sort at every level",
     '{"b":{"d":1,"c":[{"z":true,"y":null}]},"a":[],"c":{}}',
     "Arrays keep their order; objects inside arrays are sorted too."),
    ("ordinal key order", '{"b":1,"B":2,"_":3,"a":4,"aa":5,"10":6,"9":7,"1":8,"\u00e9":9,"Z":10}',
     "Ordinal (code unit) order: digits < upper case < '_' < lower case < non-ASCII."),
    ("utf-16 key order: supplementary plane before U+E000",
     '{"\ue000":"private use","\U0001f600":"emoji","\uffff":"last BMP"}',
     "UTF-16 puts U+1F600 (D83D DE00) before U+E000 and U+FFFF; UTF-8 byte order would put it last. "
     "The Connector sorts by UTF-16 (sections 3.8, 9.2)."),
    ("utf-16 key order: escaped keys sort by their characters",
     '{"\\ud83d\\ude00":1,"\\ue000":2,"\\u0041":3}',
     "Escapes in the input are decoded before sorting; the output writes the characters raw."),
    ("raw non-ascii stays raw", '{"name":"Sc\u00e8ne \u65e5\u672c\u8a9e \U0001f3ae"}',
     "Non-ASCII is written as UTF-8, never as \\u escapes."),
    ("escaped non-ascii is written raw", '{"name":"Sc\\u00E8ne \\ud83c\\udfae"}',
     "Upper- or lower-case \\u escapes and surrogate pairs decode to the characters."),
    ("line separators are escaped", '{"text":"a\u0085b\u2028c\u2029d"}',
     "Newtonsoft escapes U+0085, U+2028 and U+2029 as lowercase \\u escapes (Go leaves U+0085 raw)."),
    ("control characters", '{"text":"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f\\u007f"}',
     "Short forms for \\b \\t \\n \\f \\r; other controls as lowercase \\u00xx; DEL (U+007F) is raw."),
    ("quotes, backslash and slash", '{"text":"say \\"hi\\" \\\\ a\\/b <&> \'q\'"}',
     "Only '\"' and '\\' are escaped; '/' and HTML characters are written raw."),
    ("keys are escaped like values", '{"a\\nb":1,"\\u2028":2}', "Keys use the same escaping."),
    ("integers", '{"zero":0,"neg":-1,"max":9223372036854775807,"min":-9223372036854775808}',
     "64-bit integers are written as plain decimals."),
    ("negative zero integer", '{"n":-0}', "-0 parses as the 64-bit integer 0."),
    ("integers beyond 64 bits",
     '{"u64":18446744073709551615,"big":123456789012345678901234567890,"neg":-99999999999999999999}',
     "Too large for Int64: kept exactly as a BigInteger."),
    ("floats re-formatted by Newtonsoft",
     '{"a":1.10,"b":1e3,"c":1E3,"d":1e21,"e":1e-7,"f":0.00001,"g":0.0001,"h":1.0,"i":2.50}',
     "Doubles are written in .NET round-trip form: 1.10->1.1, 1e3->1000.0, 1e21->1E+21, "
     "1e-7->1E-07, 0.00001->1E-05, 0.0001 stays, 1.0 stays, 2.50->2.5."),
    ("float exponent boundaries", '{"a":1e14,"b":1e15,"c":123456789012345.0,"d":1.5e300,'
     '"e":-2.5e-3,"f":1e0,"g":3.14159}',
     "Fixed notation while the decimal exponent is 14 or less, E+XX from 15."),
    ("negative zero float", '{"a":-0.0,"b":-0e0,"c":0.0}',
     "Mono drops the sign of zero (section 9.2): -0.0 -> 0.0."),
    ("number-like strings stay strings", '{"a":"1.10","b":"1e3","c":"-0"}',
     "Only JSON numbers are re-formatted."),
    ("iso date-time with zero fraction", '{"at":"2026-01-01T10:00:00.000Z"}',
     "A date-looking string becomes a date; trailing fraction zeros are dropped (section 9.2)."),
    ("iso date-time fraction trimmed", '{"at":"2026-01-01T10:00:00.1200000Z","b":"2026-01-01T10:00:00Z"}',
     "Up to 7 fraction digits; already canonical text comes back unchanged."),
    ("iso date-time without zone", '{"at":"2026-01-01T10:00:00.50"}',
     "No zone: an unspecified-kind date, written without a zone."),
    ("iso date-time with numeric offset", '{"at":"2026-01-01T01:00:00.500+02:00"}',
     "Converted to the Editor's local zone. Assumes an Editor on UTC (the simulator's choice): "
     "2025-12-31T23:00:00.5+00:00. A real Editor elsewhere gives a different text."),
    ("leap day and an impossible date", '{"ok":"2024-02-29T12:00:00Z","no":"2023-02-29T12:00:00Z"}',
     "2023-02-29 does not parse as a date, so it stays the original string."),
    ("microsoft date form", '{"a":"/Date(1767225600000)/","b":"/Date(1767225600123)/",'
     '"c":"/Date(-1000)/"}', "/Date(ms)/ is a UTC date written in ISO form with 'Z'."),
    ("microsoft date form with offset", '{"a":"/Date(1767225600000+0200)/"}',
     "With an offset it is a local date; on a UTC Editor it is written with +00:00."),
    ("strings that are not dates", '{"a":"2026-01-01 10:00:00","b":"2026-01-01T10:00","c":'
     '"2026-13-01T10:00:00Z","d":"x2026-01-01T10:00:00Z","e":"Assets/2026-01-01T10:00:00Z"}',
     "Space instead of T, too short, month 13, or not starting with a digit: left alone."),
    ("date-looking keys are not dates", '{"2026-01-01T10:00:00.000Z":1}',
     "Only string values are read as dates; keys are written as given."),
    ("booleans and null", '{"t":true,"f":false,"n":null,"list":[true,false,null]}', ""),
    ("legacy positional args", '{"args":["add","com.unity.ai.navigation"]}',
     "Legacy CLI syntax: hashes differently from the named form of the same call."),
    ("params that are not an object hash as {}", "[1,2,3]",
     "The Connector treats a non-object params as {} for hashing and dispatch."),
    ("null params hash as {}", "null", "Same as absent params."),
    ("string params hash as {}", '"scene"', ""),
]

DATE_ZONE = {"iso date-time with numeric offset", "microsoft date form with offset"}


def arguments_hash():
    out = []
    for name, text, note in ARGS:
        canon = jsontext.arguments_canonical(text)
        for lit in jsontext.numbers_in(jsontext.load(text)):
            if any(c in lit for c in ".eE") and float(lit) != 0:
                assert len(newtonsoft_digits(lit)) <= 15, lit
        out.append({"name": name, "params_text": text, "expected_canonical": canon,
                    "expected_hash": jsontext.sha256_prefixed(canon),
                    "value_round_trip": jsontext.serde_value_safe(text),
                    "editor_zone_dependent": name in DATE_ZONE, "note": note})
    return out


def newtonsoft_digits(lit):
    import newtonsoft
    return newtonsoft.digits_and_exponent(float(lit))[0]


# ---------------------------------------------------------------------------------------------
# catalog-hash.json and safety-resolution.json

EPOCH = "3f2b6c0d9a4e4b5f8c1d2e3f4a5b6c7d"
HANDMADE = "handmade catalog"


def envelope(tools, epoch=EPOCH, project=DOC_PROJECT, placeholder=True, extra=None, order=None):
    env = {"project_id": project, "tools": tools, "domain_epoch": epoch,
           "catalog_hash": "@HASH@", "schema_version": "hera.tool-catalog/1"}
    if extra:
        env.update(extra)
    if order:
        env = {k: env[k] for k in order}
    return env


def with_hash(env_text):
    h = jsontext.sha256_prefixed(jsontext.catalog_material(env_text))
    return env_text.replace("@HASH@", h), h


def catalog_entry(name, text, note, schema_valid):
    material = jsontext.catalog_material(text)
    parsed = json.loads(text)
    return {"name": name, "envelope_text": text, "expected_material": material,
            "expected_hash": jsontext.sha256_prefixed(material),
            "schema_valid": schema_valid,
            "structure_ok": not catalog.structure_problems(parsed), "note": note}


def catalogs():
    tools = catalog.handmade_tools()
    base, base_hash = with_hash(catalog.dump(envelope(tools)))
    out = [catalog_entry(HANDMADE, base,
                         "Pretty-printed, members out of order, numbers such as 1e3, -0, 0.0 and "
                         "1.10 kept literally, non-ASCII and U+2028 in a description, and keys "
                         "that sort differently in UTF-16 and UTF-8. Its catalog_hash is "
                         "self-consistent.", True)]
    compact_text = catalog.compact(envelope(tools, order=["schema_version", "catalog_hash",
                                                          "domain_epoch", "project_id", "tools"]))
    compact_text = compact_text.replace("@HASH@", base_hash)
    out.append(catalog_entry("same catalog, compact, members reordered", compact_text,
                             "Layout and member order do not count: same hash as the handmade "
                             "catalog.", True))
    other = catalog.compact(envelope(tools, epoch="0123456789abcdef0123456789abcdef",
                                  project=DOC_PROJECT_WIN, extra={"x_note": "ignored"}))
    other = other.replace("@HASH@", base_hash)
    out.append(catalog_entry("only schema_version and tools count", other,
                             "A different domain_epoch, project_id and an extra top-level member "
                             "leave the hash unchanged. The extra member makes the document "
                             "invalid against the strict catalog schema.", False))
    relit = catalog.handmade_tools()
    relit[0]["input_schema"]["properties"]["limit"]["maximum"] = jsontext.Num("1000")
    changed, _ = with_hash(catalog.compact(envelope(relit)))
    out.append(catalog_entry("number literals count as written", changed,
                             "The same catalog with maximum 1e3 written as 1000: a different hash "
                             "although the value is equal.", True))
    bad = catalog.handmade_tools() + [catalog.legacy_in_core()]
    bad_text, _ = with_hash(catalog.compact(envelope(bad)))
    out.append(catalog_entry("legacy tool in a normal profile", bad_text,
                             "Hashes fine, but a client must refuse it: a legacy tool may not sit "
                             "in a normal profile (section 3.7).", False))
    return out


RESOLUTIONS = [
    ("no action, no rule", "console", None, {}, "The tool's own safety."),
    ("rule on a boolean", "console", None, {"clear": True},
     "The clear rule replaces the read-only tool safety."),
    ("rule needs the JSON boolean", "console", None, {"clear": "true"},
     "Matching is on normalized params: the Connector coerces \"true\" first, the raw string does "
     "not match (section 3.5 divergence). Send booleans."),
    ("rule not matched by false", "console", None, {"clear": False}, ""),
    ("arbitrary code by default", "exec", None, {"code": "1+1"}, ""),
    ("rule lowers arbitrary code", "exec", None, {"code": "1+1", "compile_only": True}, ""),
    ("action safety", "scene", "close", {"action": "close", "path": "Assets/A.unity"}, ""),
    ("action name is case-insensitive", "scene", "Close", {"action": "Close", "path": "A"},
     "Actions are matched lowercased."),
    ("read-only action", "scene", "info", {"action": "info"}, ""),
    ("no action: tool safety", "scene", None, {}, ""),
    ("unknown action falls back to the tool", "scene", "bogus", {"action": "bogus"},
     "The Connector answers UNKNOWN_ACTION before safety matters; resolution itself falls back."),
    ("rule const is deep-equal, key order free", "scene", "close",
     {"action": "close", "options": {"paths": ["A", "B"], "force": True}}, ""),
    ("rule const arrays keep order", "scene", "close",
     {"action": "close", "options": {"force": True, "paths": ["B", "A"]}}, "No match."),
    ("destructive action", "settings", "set_player", {"action": "set_player"}, ""),
    ("one-key rule", "settings", "set_player", {"action": "get_player", "dry_run": True},
     "preview matches."),
    ("more keys win", "settings", "get_player",
     {"action": "get_player", "dry_run": True, "force": True},
     "preview_forced (2 keys) beats preview and force (1 key each)."),
    ("rule on the action, lowercased", "settings", "SET_PLAYER",
     {"action": "SET_PLAYER", "dry_run": True},
     "preview_player (action + dry_run) beats preview; the action is compared lowercased."),
    ("tie between two-key rules", "settings", "set_player",
     {"action": "set_player", "dry_run": True, "force": True},
     "preview_forced and preview_player both match with 2 keys: ambiguous."),
    ("tie between one-key rules", "settings", None, {"verbose": True, "force": True},
     "audit and force both match with 1 key: ambiguous."),
]


def resolutions():
    tools = {t["name"]: t for t in json.loads(catalogs()[0]["envelope_text"])["tools"]}
    out = []
    for name, tool, action, params, note in RESOLUTIONS:
        kind, val = safety.resolve(tools[tool], action, params)
        entry = {"name": name, "catalog": HANDMADE, "tool": tool, "action": action,
                 "params": params}
        if kind == "ok":
            entry["expected_safety"] = val
            entry["expected_error"] = None
        else:
            entry["expected_safety"] = None
            entry["expected_error"] = val
        entry["note"] = note
        out.append(entry)
    return out


# ---------------------------------------------------------------------------------------------
# approval-sign.json and approval-verify.json

SECRET1 = bytes([1] * 32)
SECRET2 = bytes(range(32))
DOC_CLAIMS = json.loads(DOC_PAYLOAD)


def claims(**over):
    c = dict(DOC_CLAIMS)
    c.update(over)
    return c


def approval_sign():
    cases = [
        ("documented token", SECRET1, DOC_CLAIMS, "Section 5.4: signature dRSeQ6P2..."),
        ("no action", SECRET2, claims(tool="console", action=None, risk_class="destructive",
                                      operation_id="op_ffffffffffffffffffffffffffffffff",
                                      arguments_hash=DOC_ARGS["{}"]),
         "action is JSON null, not omitted."),
        ("package change", SECRET2, claims(tool="manage_packages", action="add",
                                           risk_class="package_change",
                                           expires_at_ms=1767226200123), ""),
    ]
    out = []
    for name, secret, c, note in cases:
        p = tokens.payload_json(c)
        out.append({"name": name, "secret_hex": secret.hex(), "claims": c,
                    "expected_payload_json": p, "expected_token": tokens.sign_text(secret, p),
                    "note": note})
    return out


MESSAGES = {"envelope": "envelope is invalid", "signature": "signature is invalid",
            "payload": "payload is invalid", "unsupported": "unsupported contract"}


def approval_verify():
    doc = tokens.sign_text(SECRET1, DOC_PAYLOAD)
    p, s = doc.split(".")
    reordered = json.dumps(dict(reversed(list(DOC_CLAIMS.items()))), separators=(",", ":"))
    tampered_payload = tokens.b64u(DOC_PAYLOAD.replace('"tool":"scene"', '"tool":"scenf"').encode())
    s_first = ("e" if s[0] != "e" else "f") + s[1:]
    cases = [
        ("documented token", SECRET1, doc, "Valid."),
        ("payload keys in another order", SECRET1, tokens.sign_text(SECRET1, reordered),
         "Claims are read by name; the signature covers the payload text as sent."),
        ("action null", SECRET1, tokens.sign_text(SECRET1, tokens.payload_json(claims(action=None))),
         ""),
        ("other secret (after a domain reload)", SECRET2, doc,
         "A new domain has a new secret: every older token fails the signature."),
        ("payload changed, old signature", SECRET1, tampered_payload + "." + s, ""),
        ("signature changed", SECRET1, p + "." + s_first, "First signature character altered."),
        ("signature too short", SECRET1, p + "." + tokens.b64u(bytes(16)),
         "Valid base64url, wrong length."),
        ("signature not base64url", SECRET1, p + ".!!!!", "Bad base64 reports the payload."),
        ("payload not base64url, correctly signed", SECRET1,
         tokens.sign_text_raw(SECRET1, "%%%%"), "The MAC is fine; decoding the payload fails."),
        ("payload is not json, correctly signed", SECRET1, tokens.sign_text(SECRET1, "not json"), ""),
        ("payload is a json array, correctly signed", SECRET1, tokens.sign_text(SECRET1, "[1]"), ""),
        ("three parts", SECRET1, doc + "." + s, "Verification needs exactly two parts; "
         "inspection reads only the first."),
        ("one part", SECRET1, p, ""),
        ("empty token", SECRET1, "", ""),
        ("version 2", SECRET1, tokens.sign_text(SECRET1, tokens.payload_json(claims(version=2))),
         "Correctly signed, unsupported contract."),
        ("single_use false", SECRET1,
         tokens.sign_text(SECRET1, tokens.payload_json(claims(single_use=False))),
         "Correctly signed, unsupported contract."),
        ("empty tool", SECRET1, tokens.sign_text(SECRET1, tokens.payload_json(claims(tool=""))),
         "Verification passes (the binding check would then fail with APPROVAL_MISMATCH); client "
         "inspection rejects it."),
    ]
    out = []
    for name, secret, token, note in cases:
        v = tokens.verify(secret, token)
        i = tokens.inspect(token)
        out.append({"name": name, "secret_hex": secret.hex(), "token": token,
                    "expected_verify": result(v), "expected_inspect": result(i), "note": note})
    return out


def result(r):
    if r[0] == "ok":
        return {"ok": True, "claims": r[1], "error": None, "code": None, "message": None}
    return {"ok": False, "claims": None, "error": r[1], "code": "INVALID_APPROVAL_TOKEN",
            "message": MESSAGES[r[1]]}


# ---------------------------------------------------------------------------------------------
# task-id-encode.json and task-id-decode.json

RUN = "0123456789abcdef0123456789abcdef"
OP = "op_0123456789abcdef0123456789abcdef"
TEST_REC = {"v": 2, "project_id": DOC_PROJECT, "k": "test", "p": 8090, "u": RUN, "o": OP,
            "c": 1767225600000}
PKG_REC = {"v": 2, "project_id": DOC_PROJECT, "k": "package", "p": 8091,
           "u": "pkg-" + RUN, "o": OP, "a": "add", "c": 1767225600123}


def rec(base, **over):
    r = dict(base)
    r.update(over)
    return r


def task_encode():
    cases = [
        ("test run", TEST_REC, "No action: the a key is left out."),
        ("package job", PKG_REC, ""),
        ("empty action is left out", rec(TEST_REC, a=""), "Go omits an empty a; same id as 'test run'."),
    ]
    return [{"name": n, "record": r, "expected_task_id": task_ids.encode(r), "note": note}
            for n, r, note in cases]


def raw_id(fields):
    return task_ids.PREFIX + tokens.b64u(json.dumps(fields, separators=(",", ":")).encode())


def task_decode():
    pkg_id = task_ids.encode(PKG_REC)
    reordered = raw_id(dict(reversed(list(PKG_REC.items()))))
    padded_body = tokens.b64u(json.dumps(PKG_REC, separators=(",", ":")).encode())
    assert len(padded_body) % 4, "the padded case needs a body that would take padding"
    cases = [
        ("test run", task_ids.encode(TEST_REC), ""),
        ("package job", pkg_id, ""),
        ("keys in another order", reordered, "Decoding does not depend on key order."),
        ("wrong prefix", pkg_id.replace("hera_task_", "hera_tsk_", 1), ""),
        ("longer than 1024", task_ids.encode(rec(TEST_REC, project_id="x" * 800)), ""),
        ("not base64url", "hera_task_***", ""),
        ("padded base64", task_ids.PREFIX + padded_body + "=" * (-len(padded_body) % 4),
         "Raw (unpadded) base64url only."),
        ("not json", task_ids.PREFIX + tokens.b64u(b"not json"), ""),
        ("version 1", raw_id(rec(TEST_REC, v=1)), ""),
        ("unknown kind", raw_id(rec(TEST_REC, k="build")), "Only test and package jobs."),
        ("port 0", raw_id(rec(TEST_REC, p=0)), "Ports are 1-65535."),
        ("port 65536", raw_id(rec(TEST_REC, p=65536)), ""),
        ("negative port", raw_id(rec(TEST_REC, p=-1)), ""),
        ("run id too short", raw_id(rec(TEST_REC, u="abc1234")), "7 characters; 8-160 needed."),
        ("run id with a dot", raw_id(rec(TEST_REC, u="run.0123456789")), ""),
        ("operation id too long", raw_id(rec(TEST_REC, o="o" * 161)), ""),
        ("operation id longest", raw_id(rec(TEST_REC, o="o" * 160)), "160 characters is fine."),
    ]
    out = []
    for name, tid, note in cases:
        r = task_ids.decode(tid)
        e = {"name": name, "task_id": tid}
        if r[0] == "ok":
            e.update({"expected_record": r[1], "expected_error": None})
        else:
            e.update({"expected_record": None,
                      "expected_error": {"kind": r[1], "field": r[2]}})
        e["note"] = note
        out.append(e)
    return out


# ---------------------------------------------------------------------------------------------
# operation-ids.json

OPS = [
    ("go form", OP, "op_ + 32 lowercase hex, what the Go client and the adapter generate."),
    ("connector generated form", "op_" + "0f1e2d3c4b5a69788796a5b4c3d2e1f0", ""),
    ("upper-case hex", "op_0123456789ABCDEF0123456789ABCDEF", ""),
    ("hyphen", "op-2026-01-01", ""),
    ("shortest", "abcdefgh", "8 characters."),
    ("too short", "op_1234", "7 characters."),
    ("longest", "a" * 128, "128 characters."),
    ("too long", "a" * 129, ""),
    ("empty", "", "Blank: the Connector treats it as absent and generates an id."),
    ("whitespace only", "        ", "Blank: the Connector treats it as absent and generates an id."),
    ("space inside", "op 0123456789", ""),
    ("dot", "op.0123456789", ""),
    ("colon", "op:0123456789", ""),
    ("bmp letters", "op\u00e9ration_1", "Unicode letters count."),
    ("cjk letters", "\u64cd\u4f5c_12345678", ""),
    ("arabic-indic digits", "op_\u0661\u0662\u0663\u0664\u0665", "Decimal digits (Nd) count."),
    ("superscript digits", "op_\u00b9\u00b2\u00b3\u2074\u2075", "No (other number) is not a digit."),
    ("roman numerals", "op_\u2160\u2161\u2162\u2163\u2164", "Nl (letter number) is neither."),
    ("combining vowel sign", "op_\u0915\u093f12345", "U+093F is a spacing mark (Mc), not a letter."),
    ("supplementary letter", "op_\U0001d400bcdefgh",
     "U+1D400 is a letter, but the Connector tests UTF-16 units and a surrogate is neither letter "
     "nor digit (section 6.1). Go would accept it."),
    ("supplementary digit", "op_\U0001d7ce1234567", "U+1D7CE is a decimal digit outside the BMP."),
    ("emoji", "op_\U0001f600_12345", ""),
]


def operation_ids():
    out = []
    for name, oid, note in OPS:
        err = op_ids.check(oid)
        out.append({"name": name, "operation_id": oid, "utf16_length": len(oid.encode("utf-16-le")) // 2,
                    "expected_valid": err is None, "expected_error": err,
                    "blank": op_ids.blank(oid),
                    "expected_wire_code": None if err is None or op_ids.blank(oid)
                    else "INVALID_OPERATION_ID", "note": note})
    return out


# ---------------------------------------------------------------------------------------------
# Writing

INVISIBLE = {"Cc", "Cf", "Co", "Cs", "Zl", "Zp", "Zs", "Mn", "Mc", "Me"}


def render(entries):
    text = json.dumps(entries, indent=2, ensure_ascii=False)
    out = []
    for ch in text:
        if ch not in " \n" and unicodedata.category(ch) in INVISIBLE:
            for unit in range(0, len(ch.encode("utf-16-be")), 2):
                b = ch.encode("utf-16-be")[unit:unit + 2]
                out.append("\\u%04x" % int.from_bytes(b, "big"))
        else:
            out.append(ch)
    rendered = "".join(out) + "\n"
    assert json.loads(rendered) == entries
    return rendered


FILES = {
    "project-identity.json": project_identity,
    "arguments-hash.json": arguments_hash,
    "catalog-hash.json": catalogs,
    "safety-resolution.json": resolutions,
    "approval-sign.json": approval_sign,
    "approval-verify.json": approval_verify,
    "task-id-encode.json": task_encode,
    "task-id-decode.json": task_decode,
    "operation-ids.json": operation_ids,
    "schema-examples.json": lambda: schema_examples.examples(catalogs(), approval_sign()),
}


def main():
    check = "--check" in sys.argv[1:]
    check_documented()
    stale = []
    for fname, build in FILES.items():
        entries = build()
        names = [e["name"] for e in entries]
        assert len(names) == len(set(names)), fname + ": duplicate names"
        text = render(entries)
        path = os.path.join(OUT, fname)
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if current != text:
            stale.append(fname)
            if not check:
                with open(path, "w", encoding="utf-8", newline="\n") as f:
                    f.write(text)
        print("%-24s %3d vectors%s" % (fname, len(entries), "  (changed)" if current != text else ""))
    if check and stale:
        sys.exit("stale vector files: " + ", ".join(stale))


if __name__ == "__main__":
    main()
