//! The listener's ingress rules (§2.2, §2.3): status codes, exact `HTTP_*` envelopes with
//! `"timings":null`, headers, body limits, the JSON-object check and the pending-queue limit.

use crate::common::*;
use hera_connector_sim::Fault;
use serde_json::{Value, json};
use std::time::Duration;

fn assert_http_error(r: &Http, status: u16, code: &str) {
    assert_eq!(r.status, status, "{}", r.text());
    let v = r.json();
    assert_eq!(v["success"], false);
    assert_eq!(v["code"], code);
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert_eq!(v["timings"], Value::Null);
    assert!(r.text().ends_with(",\"timings\":null}"), "{}", r.text());
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    check_response("/command", r);
}

#[test]
fn options_origin_method_and_path() {
    let f = start();
    let p = f.port();
    let r = request(
        p,
        "OPTIONS",
        "/anything",
        &["Origin: http://evil.example"],
        b"",
    )
    .unwrap();
    assert_eq!(r.status, 204);
    assert!(r.body.is_empty());

    let r = request(
        p,
        "POST",
        "/command",
        &["Origin: http://evil.example"],
        b"{\"command\":\"list\"}",
    )
    .unwrap();
    assert_http_error(&r, 403, "HTTP_BROWSER_REQUEST_FORBIDDEN");
    let r = request(p, "GET", "/command", &["Origin: null"], b"").unwrap();
    assert_http_error(&r, 403, "HTTP_BROWSER_REQUEST_FORBIDDEN");

    let r = request(p, "GET", "/command", &[], b"").unwrap();
    assert_http_error(&r, 405, "HTTP_METHOD_NOT_ALLOWED");
    // The method is checked before the path.
    let r = request(p, "PUT", "/nowhere", &[], b"{}").unwrap();
    assert_http_error(&r, 405, "HTTP_METHOD_NOT_ALLOWED");
    let r = request(p, "POST", "/nowhere", &[], b"{}").unwrap();
    assert_http_error(&r, 404, "HTTP_NOT_FOUND");
    let r = request(p, "POST", "/status", &[], b"{}").unwrap();
    assert_http_error(&r, 404, "HTTP_NOT_FOUND");
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn json_object_and_command_checks() {
    let f = start();
    let p = f.port();
    for body in [
        "",
        "{",
        "[1,2]",
        "\"text\"",
        "null",
        "{\"command\":\"list\",}",
    ] {
        let r = request(p, "POST", "/command", &[], body.as_bytes()).unwrap();
        assert_http_error(&r, 400, "HTTP_INVALID_JSON");
    }
    let r = request(p, "POST", "/command", &[], &[0xff, 0xfe, b'{', b'}']).unwrap();
    assert_http_error(&r, 400, "HTTP_INVALID_JSON");
    for body in [
        "{}",
        "{\"command\":\"\"}",
        "{\"command\":null}",
        "{\"params\":{}}",
    ] {
        let r = request(p, "POST", "/command", &[], body.as_bytes()).unwrap();
        assert_http_error(&r, 400, "HTTP_MISSING_COMMAND");
    }
    let r = request(p, "POST", "/commands", &[], b"{\"commands\":{}}").unwrap();
    assert_http_error(&r, 400, "HTTP_MISSING_COMMANDS");
    let r = request(p, "POST", "/commands", &[], b"{}").unwrap();
    assert_http_error(&r, 400, "HTTP_MISSING_COMMANDS");
    let r = request(
        p,
        "POST",
        "/commands",
        &[],
        b"{\"commands\":[{\"command\":\"list\"},3]}",
    )
    .unwrap();
    assert_http_error(&r, 400, "HTTP_INVALID_JSON");
    let items: Vec<Value> = (0..51)
        .map(|_| json!({"command":"list","params":{"names":true}}))
        .collect();
    let r = request(
        p,
        "POST",
        "/commands",
        &[],
        json!({"commands": items}).to_string().as_bytes(),
    )
    .unwrap();
    assert_http_error(&r, 400, "HTTP_BATCH_TOO_LARGE");
    let r = request(p, "POST", "/approval/preflight", &[], b"[]").unwrap();
    assert_http_error(&r, 400, "HTTP_INVALID_JSON");
}

/// A JSON object of exactly `len` bytes.
fn body_of_len(len: usize) -> Vec<u8> {
    let head = b"{\"command\":\"list\",\"params\":{\"names\":true},\"pad\":\"";
    let tail = b"\"}";
    let mut v = head.to_vec();
    v.resize(len - tail.len(), b'x');
    v.extend_from_slice(tail);
    assert_eq!(v.len(), len);
    v
}

#[test]
fn an_oversized_body_is_refused_on_its_declared_length_without_being_read() {
    let f = start();
    let p = f.port();
    let mib = 1024 * 1024;
    // Only the head and a few bytes are sent: a server that read (or drained) the body would
    // wait for the rest; the Connector answers at once from Content-Length.
    for (path, len) in [("/command", mib + 1), ("/commands", 4 * mib + 1)] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n{{\"command\":\"list\""
        );
        let r = send_raw(p, head.as_bytes()).unwrap();
        assert_http_error(&r, 413, "HTTP_REQUEST_BODY_TOO_LARGE");
    }
    // Sending the whole oversized body may then end in a reset instead of the 413: what the
    // client reads depends on the TCP stack, never on a drained body.
    let sent = request(p, "POST", "/command", &[], &body_of_len(8 * mib));
    if let Ok(r) = sent {
        assert_http_error(&r, 413, "HTTP_REQUEST_BODY_TOO_LARGE");
    }
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn body_limits() {
    // Draining on: whole oversized bodies read a clean 413.
    let f = start_with(|c| c.quirks.drain_oversized_bodies = true);
    let p = f.port();
    let mib = 1024 * 1024;
    let r = request(p, "POST", "/command", &[], &body_of_len(mib)).unwrap();
    assert_eq!(r.status, 200, "exactly 1 MiB is accepted");
    let r = request(p, "POST", "/command", &[], &body_of_len(mib + 1)).unwrap();
    assert_http_error(&r, 413, "HTTP_REQUEST_BODY_TOO_LARGE");
    let r = request(p, "POST", "/approval/preflight", &[], &body_of_len(mib + 1)).unwrap();
    assert_http_error(&r, 413, "HTTP_REQUEST_BODY_TOO_LARGE");
    // /commands allows 4 MiB.
    let mut batch =
        b"{\"commands\":[{\"command\":\"list\",\"params\":{\"names\":true}}],\"pad\":\"".to_vec();
    batch.resize(2 * mib, b'x');
    batch.extend_from_slice(b"\"}");
    let r = request(p, "POST", "/commands", &[], &batch).unwrap();
    assert_eq!(
        r.status,
        200,
        "{}",
        String::from_utf8_lossy(&r.body[..200.min(r.body.len())])
    );
    batch.truncate(batch.len() - 2);
    batch.resize(4 * mib, b'x');
    batch.extend_from_slice(b"\"}");
    let r = request(p, "POST", "/commands", &[], &batch).unwrap();
    assert_http_error(&r, 413, "HTTP_REQUEST_BODY_TOO_LARGE");
}

#[test]
fn headers_and_connection_close() {
    let f = start();
    let r = post(
        f.port(),
        "/command",
        r#"{"command":"list","params":{"names":true}}"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(
        r.header("content-length"),
        Some(r.body.len().to_string().as_str())
    );
    assert_eq!(r.header("connection"), Some("close"));
    assert!(!r.body.starts_with(&[0xef, 0xbb, 0xbf]), "no BOM");
}

#[test]
fn a_bom_or_more_than_64_levels_is_not_json_to_the_connector() {
    let f = start();
    // The body is decoded without stripping a BOM, and the JSON reader does not skip it.
    let mut bom = vec![0xef, 0xbb, 0xbf];
    bom.extend_from_slice(br#"{"command":"list","params":{"names":true}}"#);
    let r = request(f.port(), "POST", "/command", &[], &bom).unwrap();
    assert_http_error(&r, 400, "HTTP_INVALID_JSON");
    // The reader's depth limit is 64.
    let nested = |n: usize| {
        format!(
            r#"{{"command":"list","params":{{"names":true,"x":{}1{}}}}}"#,
            "[".repeat(n - 2),
            "]".repeat(n - 2)
        )
    };
    assert_eq!(post(f.port(), "/command", &nested(64)).status, 200);
    let r = post(f.port(), "/command", &nested(65));
    assert_http_error(&r, 400, "HTTP_INVALID_JSON");
}

#[test]
fn queue_full_answers_429() {
    // The hold must outlast queueing 63 requests on a busy machine; the waiters' lock wait
    // must outlast the hold.
    const HOLD: Duration = Duration::from_secs(15);
    let f = start_with(|c| c.lock_wait = Duration::from_secs(90));
    let p = f.port();
    // One command holds the lock for a while; 63 more wait behind it: 64 pending.
    f.sim.inject(Fault::Delay {
        ms: HOLD.as_millis() as u64,
        times: 1,
    });
    let holder_id = op();
    let holder_op = holder_id.clone();
    let holder = std::thread::spawn(move || call(p, "scene", json!({"action":"save"}), &holder_op));
    // It holds the lock once its record is committed (the delay follows the commit).
    assert!(
        wait_for(Duration::from_secs(30), || ledger_record(
            &f.sim, &holder_id
        )
        .filter(|r| r["state"] == "committed"))
        .is_some(),
        "the holder runs and keeps the lock"
    );
    let waiters: Vec<_> = (0..63)
        .map(|_| {
            std::thread::spawn(move || {
                post(
                    p,
                    "/command",
                    r#"{"command":"list","params":{"names":true}}"#,
                )
                .status
            })
        })
        .collect();
    assert!(
        wait_for(HOLD - Duration::from_secs(1), || (f.sim.pending_requests()
            == 64)
            .then_some(()))
        .is_some(),
        "63 waiters queued behind the holder"
    );
    let r = request(
        p,
        "POST",
        "/command",
        &[],
        br#"{"command":"list","params":{"names":true}}"#,
    )
    .unwrap();
    assert_http_error(&r, 429, "HTTP_QUEUE_FULL");
    assert_eq!(holder.join().unwrap()["success"], true);
    for w in waiters {
        assert_eq!(w.join().unwrap(), 200);
    }
    // The queue drains: new requests are served again.
    assert_eq!(
        post(
            p,
            "/command",
            r#"{"command":"list","params":{"names":true}}"#
        )
        .status,
        200
    );
}

#[test]
fn batch_option_that_cannot_be_a_boolean_is_a_500() {
    let f = start();
    let r = request(
        f.port(),
        "POST",
        "/commands",
        &[],
        br#"{"commands":[{"command":"list","params":{"names":true}}],"options":{"fail_fast":null}}"#,
    )
    .unwrap();
    assert_http_error(&r, 500, "HTTP_INTERNAL_ERROR");
    let r = request(
        f.port(),
        "POST",
        "/commands",
        &[],
        br#"{"commands":[{"command":"list","params":{"names":true}}],"options":{"atomic":"yes"}}"#,
    )
    .unwrap();
    assert_http_error(&r, 500, "HTTP_INTERNAL_ERROR");
}
