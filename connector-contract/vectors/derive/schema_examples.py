"""Hand-written instances for schemas/*.schema.json, each marked valid or invalid by hand.

`decode_as` names the contract crate type a valid instance must also deserialize into (the
crate's readers must be at least as tolerant as the schema), or null.
"""

import copy
import json

HB = {"state": "ready", "projectPath": "/Users/me/Unity/MyGame", "port": 8090, "pid": 41234,
      "unityVersion": "6000.3.5f2", "docsVersion": "6000.3",
      "compiler": {"cscPath": "/Applications/Unity/Hub/Editor/6000.3.5f2/Unity.app/Contents/DotNetSdkRoslyn/csc.dll",
                   "cscKind": "unity_dotnet_sdk_roslyn", "cscFound": True,
                   "dotnetPath": "/Applications/Unity/Hub/Editor/6000.3.5f2/Unity.app/Contents/NetCoreRuntime/dotnet",
                   "dotnetKind": "unity_netcore_runtime", "dotnetFound": True, "error": None},
      "domainEpoch": "3f2b6c0d9a4e4b5f8c1d2e3f4a5b6c7d",
      "features": ["approval_v1", "domain_epoch_v1", "execution_protocol_v1", "operation_ledger_v1",
                   "task_bridge_v1", "tool_catalog_v1"],
      "timestamp": 1767225600000, "compileErrors": False}
H = "sha256:" + "0" * 63 + "1"
PID = "sha256:eddb71bd6dcc1509ea1fe8ad4aa23d4e01088ce758c86fe03005fd7107de2a99"
OP = "op_0123456789abcdef0123456789abcdef"
META = {"protocol_version": "hera.execution/1", "operation_id": OP,
        "arguments_hash": "sha256:7c3721cd1fb0b0551280f80624c364bd0edff4849d4ad9d648af8bd8204049b4",
        "approval_token": None, "client_kind": "cli"}


def with_(base, **over):
    out = copy.deepcopy(base)
    for k, v in over.items():
        if v is DROP:
            out.pop(k, None)
        else:
            out[k] = v
    return out


DROP = object()


def examples(catalog_vectors, sign_vectors):
    token = sign_vectors[0]["expected_token"]
    claims = sign_vectors[0]["claims"]
    handmade = json.loads(catalog_vectors[0]["envelope_text"])
    legacy_core = json.loads([c for c in catalog_vectors if c["name"] == "legacy tool in a normal profile"][0]["envelope_text"])
    extra = json.loads([c for c in catalog_vectors if c["name"] == "only schema_version and tools count"][0]["envelope_text"])
    bad_ro = copy.deepcopy(handmade)
    bad_ro["tools"][0]["safety"]["read_only"] = False
    bad_action_rules = copy.deepcopy(handmade)
    bad_action_rules["tools"][2]["actions"][0]["safety"]["rules"] = copy.deepcopy(handmade["tools"][0]["safety"]["rules"])
    no_conf = copy.deepcopy(handmade)
    no_conf["tools"][2]["actions"][0]["safety"]["requires_confirmation"] = False

    req = {"command": "scene", "params": {"action": "info"}, "meta": META}
    ledger = {"schema_version": 1, "operation_id": OP, "tool": "scene", "action": "close",
              "arguments_hash": "sha256:13b4369de9a5f6e701c1fb7a404d920b43c0081476be668c3e91de215e8e7cd5",
              "risk_class": "destructive", "idempotent": False, "approval_verified": True,
              "state": "committed", "started_at_ms": 1767225600000, "committed_at_ms": 1767225600420,
              "response": {"success": True, "message": "Closed scene", "data": {"path": "Assets/Scenes/Level2.unity"}, "timings": None},
              "response_hash": H, "domain_epoch": "3f2b6c0d9a4e4b5f8c1d2e3f4a5b6c7d"}
    test_pending = {"port": 8090, "run_id": "0123456789abcdef0123456789abcdef", "filter": "", "mode": "EditMode",
                    "selective": False, "nunit_guid": "", "owner_pid": 41234, "project_id": PID}
    pkg_pending = {"job_id": "pkg-0123456789abcdef0123456789abcdef", "port": 8090, "action": "add",
                   "identifier": "com.unity.ai.navigation", "project_id": PID, "owner_pid": 41234,
                   "started_unix_ms": 1767225600000}
    counts = {"total": 3, "passed": 2, "failed": 1, "skipped": 0, "failures": ["T.A: Expected 1 but was 2"], "passes": ["T.B", "T.C"]}
    preflight_ok = {"success": True, "message": "Approval preflight",
                    "data": {"token": token, "operation_id": OP, "expires_at_ms": 1767225900000,
                             "summary": {"tool": "scene", "action": "close", "target": "\"Assets/Scenes/Level2.unity\"",
                                         "side_effect": "unity_project", "reversible": False, "may_reload_domain": False,
                                         "external_impact": False, "operation_id": OP}},
                    "timings": None}
    E = []

    def ex(schema, name, instance, valid, note="", decode_as=None):
        E.append({"name": schema + ": " + name, "schema": schema, "instance": instance,
                  "expected_valid": valid, "decode_as": decode_as if valid else None, "note": note})

    ex("heartbeat", "documented example", HB, True, "Section 1.4 example.", "Heartbeat")
    ex("heartbeat", "older connector", {"state": "ready", "projectPath": "/p", "port": 8090, "pid": 1,
                                         "timestamp": 1767225600000}, True,
       "No domainEpoch, no features, no compiler.", "Heartbeat")
    ex("heartbeat", "only the port", {"port": 8091}, True, "Every other field is optional to readers.", "Heartbeat")
    ex("heartbeat", "null compiler strings and port 0",
       with_(HB, state="reloading", port=0, compiler={"cscPath": None, "cscKind": None, "cscFound": False,
                                                      "dotnetPath": None, "dotnetKind": "missing",
                                                      "dotnetFound": False, "error": "no compiler"}),
       True, "", "Heartbeat")
    ex("heartbeat", "unknown member", with_(HB, futureField={"x": 1}), True, "Readers ignore unknown members.", "Heartbeat")
    ex("heartbeat", "no port", with_(HB, port=DROP), False)
    ex("heartbeat", "upper-case epoch", with_(HB, domainEpoch="3F2B6C0D9A4E4B5F8C1D2E3F4A5B6C7D"), False)
    ex("heartbeat", "unknown state", with_(HB, state="sleeping"), False)

    ex("command-request", "go form", req, True, "Section 2.5.")
    ex("command-request", "strict call with catalog_hash",
       {"command": "manage_packages", "params": {"action": "add", "identifier": "com.unity.ai.navigation"},
        "meta": with_(META, catalog_hash=H, approval_token=token, client_kind="mcp")}, True)
    ex("command-request", "catalog fetch",
       {"command": "list", "params": {"catalog": True, "schema_version": "hera.tool-catalog/1"}, "meta": META}, True)
    ex("command-request", "catalog fetch with catalog_hash",
       {"command": "list", "params": {"catalog": True, "schema_version": "hera.tool-catalog/1"},
        "meta": with_(META, catalog_hash=H)}, False, "Never send catalog_hash on list.")
    ex("command-request", "no meta", with_(req, meta=DROP), False, "A client always sends meta.")
    ex("command-request", "unknown protocol", with_(req, meta=with_(META, protocol_version="hera.execution/2")), False)
    ex("command-request", "operation id with a space", with_(req, meta=with_(META, operation_id="op 0123456789")), False)
    ex("command-request", "empty command", with_(req, command=""), False)
    ex("command-request", "params not an object", with_(req, params=["info"]), False,
       "The Connector would treat it as {}; a client never sends it.")

    ex("command-response", "success", {"success": True, "message": "Scene info", "data": {"name": "Main"},
                                       "timings": {"total_ms": 3}}, True)
    ex("command-response", "success with hint and diagnostics",
       {"success": True, "message": "ok", "data": [1, 2], "agent_hint": "use X",
        "diagnostics": [{"Code": "DEPRECATED_ARGUMENT", "Path": "/alias", "Message": "use name"}],
        "timings": {"total_ms": 2, "compile_ms": 10, "cache": 1}}, True)
    ex("command-response", "validation error",
       {"success": False, "message": "Validation failed at '/identifier'.", "code": "MISSING_ARGUMENT",
        "data": {"path": "/identifier", "expected": "string", "actual": None}, "timings": {"total_ms": 3}}, True,
       "Section 2.4 example.")
    ex("command-response", "unknown action",
       {"success": False, "message": "Unknown action: bogus", "code": "UNKNOWN_ACTION",
        "data": {"path": "/action", "expected": ["close", "create", "hierarchy", "info", "list", "load", "save",
                                                 "save_all", "set_active"], "actual": "bogus"},
        "timings": {"total_ms": 2}}, True, "Section 2.4 example.")
    ex("command-response", "rejected before queueing",
       {"success": False, "message": "arguments_hash does not match", "code": "ARGUMENTS_HASH_MISMATCH",
        "timings": None}, True, "timings null.")
    ex("command-response", "null message and code", {"success": False, "message": None, "code": None,
                                                     "timings": None}, True, "Section 9.5 tolerance.")
    ex("command-response", "verbatim anonymous object", {"success": True, "value": 42}, True,
       "A tool's own object, serialized as is, without timings.")
    ex("command-response", "verbatim string", "done", True, "Even a bare string.")
    ex("command-response", "timings but no success", {"message": "x", "timings": None}, False)
    ex("command-response", "string timing", {"success": True, "message": "x", "timings": {"total_ms": "3"}}, False)
    ex("command-response", "camelCase diagnostics",
       {"success": True, "message": "x", "diagnostics": [{"code": "DEPRECATED_ARGUMENT"}], "timings": None}, False,
       "Diagnostics keys are PascalCase.")

    ex("http-error", "not found", {"success": False, "message": "Not found", "code": "HTTP_NOT_FOUND",
                                   "timings": None}, True)
    ex("http-error", "response write failed", {"success": False, "code": "RESPONSE_WRITE_FAILED",
                                               "message": "could not write"}, True, "Hand-written, no timings.")
    ex("http-error", "queue full without timings", {"success": False, "message": "busy",
                                                     "code": "HTTP_QUEUE_FULL"}, False)
    ex("http-error", "doc name instead of code", {"success": False, "message": "x", "code": "NOT_FOUND",
                                                  "timings": None}, False, "The code is HTTP_NOT_FOUND (section 10).")

    batch = {"commands": [{"command": "manage_gameobject", "params": {"action": "create", "name": "A"}},
                          {"command": "scene", "params": {"action": "save"}}],
             "options": {"fail_fast": False, "atomic": False}}
    ex("batch-request", "go form", batch, True, "Section 2.6.")
    ex("batch-request", "item without params", with_(batch, commands=[{"command": "scene"}]), True)
    ex("batch-request", "no options", with_(batch, options=DROP), False, "A client always sends both options.")
    ex("batch-request", "string option", with_(batch, options={"fail_fast": "yes", "atomic": False}), False)
    ex("batch-request", "51 items", with_(batch, commands=[{"command": "scene"}] * 51), False)
    ex("batch-request", "item with meta", with_(batch, commands=[{"command": "scene", "meta": META}]), False,
       "Batch items have no meta.")

    ok_item = {"success": True, "message": "created", "data": {"id": 1}, "timings": {"total_ms": 1}}
    ex("batch-response", "results", {"success": True, "Results": [ok_item, {"success": False, "message": "no",
                                                                           "code": "SCENE_NOT_FOUND", "timings": None}],
                                     "Completed": 1, "Failed": 1}, True)
    ex("batch-response", "approval pre-scan", {"success": False, "message": "Batch item 'scene' requires individual approval.",
                                               "code": "APPROVAL_REQUIRED", "timings": None}, True)
    ex("batch-response", "camelCase keys", {"success": True, "results": [], "completed": 0, "failed": 0}, False,
       "The wire keys are PascalCase.")
    ex("batch-response", "with message", {"success": True, "message": "x", "Results": [], "Completed": 0,
                                          "Failed": 0}, False)

    pre = {"operation_id": OP, "tool": "scene", "action": "close",
           "arguments": {"action": "close", "path": "Assets/Scenes/Level2.unity"}}
    ex("preflight-request", "documented", pre, True, "Section 2.7.")
    ex("preflight-request", "no action", with_(pre, action=DROP, tool="console", arguments={"clear": True}), True)
    ex("preflight-request", "empty action", with_(pre, action=""), False, "Omit the key instead.")
    ex("preflight-request", "arguments not an object", with_(pre, arguments=[1]), False)

    ex("preflight-response", "token issued", preflight_ok, True, "Section 5.3.")
    ex("preflight-response", "null summary action",
       with_(preflight_ok, data=with_(preflight_ok["data"], summary=with_(preflight_ok["data"]["summary"], action=None,
                                                                        target="current Unity project"))), True)
    ex("preflight-response", "not required", {"success": False, "message": "Approval is not required.",
                                              "code": "APPROVAL_NOT_REQUIRED", "timings": None}, True)
    ex("preflight-response", "timings set", with_(preflight_ok, timings={"total_ms": 1}), False,
       "Preflight responses keep timings null.")
    ex("preflight-response", "error with timings", {"success": False, "message": "x", "code": "UNKNOWN_TOOL",
                                                    "timings": {"total_ms": 1}}, False)

    ex("approval-token-payload", "documented", claims, True, "Section 5.4.", "ApprovalClaims")
    ex("approval-token-payload", "null action", with_(claims, action=None), True, "", "ApprovalClaims")
    ex("approval-token-payload", "version 2", with_(claims, version=2), False)
    ex("approval-token-payload", "reusable", with_(claims, single_use=False), False)
    ex("approval-token-payload", "extra claim", with_(claims, scope="all"), False)
    ex("approval-token-payload", "missing action", with_(claims, action=DROP), False, "action is null, never omitted.")

    ex("tool-catalog", "handmade catalog", handmade, True, "The catalog of catalog-hash.json.", "Catalog")
    ex("tool-catalog", "legacy tool in core", legacy_core, False, "Section 3.7 profile rule.")
    ex("tool-catalog", "extra envelope member", extra, False, "Strict like the Go parser.")
    ex("tool-catalog", "read_only risk with read_only false", bad_ro, False, "Section 3.5 invariant.")
    ex("tool-catalog", "rules on an action", bad_action_rules, False, "Rules exist only at tool level.")
    ex("tool-catalog", "destructive without confirmation", no_conf, False, "Section 3.5 invariant.")
    ex("tool-catalog", "no tools", with_(handmade, tools=[]), False)

    ex("ledger-record", "committed", ledger, True, "Section 6.3.", "LedgerRecord")
    ex("ledger-record", "running", with_(ledger, state="running", committed_at_ms=None, response=None,
                                         response_hash=None, approval_verified=False, action=None), True, "",
       "LedgerRecord")
    ex("ledger-record", "response compacted away", with_(ledger, response=DROP, response_hash=None), True, "",
       "LedgerRecord")
    ex("ledger-record", "cancelled", with_(ledger, state="cancelled"), False, "Never written by the code.")
    ex("ledger-record", "committed without commit time", with_(ledger, committed_at_ms=None), False)

    ex("test-pending", "documented", test_pending, True, "Section 7.1.", "TestPending")
    ex("test-pending", "older record", with_(test_pending, project_id=DROP), True, "", "TestPending")
    ex("test-pending", "no run id", with_(test_pending, run_id=DROP), False)

    ex("test-result", "all passed", {"success": True, "message": "All 3 test(s) passed.",
                                     "data": with_(counts, failed=0, passed=3, failures=[]), "timings": None}, True)
    ex("test-result", "tests failed", {"success": False, "message": "1 test(s) failed.", "code": "TESTS_FAILED",
                                       "data": counts, "timings": None}, True)
    ex("test-result", "cancelled", {"success": False, "message": "Test run cancelled.", "code": "TEST_RUN_CANCELLED",
                                    "timings": None}, True)
    ex("test-result", "no timings", {"success": True, "message": "All 3 test(s) passed.", "data": counts}, False,
       "Test results are full envelopes.")

    ex("package-pending", "documented", pkg_pending, True, "Section 7.2.", "PackagePending")
    ex("package-pending", "bad job id", with_(pkg_pending, job_id="job-1"), False)

    pkg_data = {"action": "add", "identifier": "com.unity.ai.navigation"}
    ex("package-result", "direct success", {"success": True, "message": "Package add completed.",
                                            "data": with_(pkg_data, package={"name": "com.unity.ai.navigation",
                                                                             "version": "2.0.0", "source": "registry",
                                                                             "resolved_path": "/x", "is_direct_dependency": True,
                                                                             "display_name": "AI Navigation"})}, True,
       "No code member at all.")
    ex("package-result", "verified after reload", {"success": True, "message": "Package add completed (verified post-reload).",
                                                   "code": None, "data": with_(pkg_data, package=None)}, True,
       "code present as null.")
    ex("package-result", "add failed", {"success": False, "message": "Package add failed.", "code": "PACKAGE_ADD_FAILED",
                                        "data": with_(pkg_data, error="not found")}, True)
    ex("package-result", "timeout", {"success": False, "message": "Package job timed out.", "code": "PACKAGE_TIMEOUT",
                                     "data": pkg_data}, True)
    ex("package-result", "with timings", {"success": True, "message": "x", "data": pkg_data, "timings": None}, False,
       "Package results never carry timings.")
    ex("package-result", "failure without code", {"success": False, "message": "x", "data": pkg_data}, False)

    build_data = {"result": "Succeeded", "output_path": "Builds/Game", "target": "StandaloneLinux64",
                  "size_bytes": 123456, "total_seconds": 42.5, "error_count": 0, "warning_count": 2, "errors": []}
    ex("build-result", "finished", {"success": True, "message": "build finished", "data": build_data}, True, "Section 7.3.")
    ex("build-result", "other message", {"success": True, "message": "done", "data": build_data}, False)
    ex("build-result", "missing counts", {"success": True, "message": "build finished",
                                          "data": with_(build_data, error_count=DROP)}, False)
    return E
