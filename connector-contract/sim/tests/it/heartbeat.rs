//! The heartbeat file (§1.2–§1.4, §12.1): name, every field, the 1 s rewrite through a temp
//! file, the HOME override, and each knob a discovery test needs.

use crate::common::*;
use hera_connector_contract::identity::{heartbeat_file_name, project_id};
use hera_connector_contract::wire::{ALL_FEATURES, Heartbeat};
use hera_connector_sim::{Reload, SimConfig, Simulator};
use serde_json::{Value, json};
use std::time::Duration;

fn ts(v: &Value) -> i64 {
    v["timestamp"].as_i64().unwrap()
}

#[test]
fn every_field_under_the_given_home() {
    let f = start();
    let path = f
        .home
        .path()
        .join(".hera-agent-unity/instances/0f8a4cd2094360e3.json");
    assert_eq!(f.sim.heartbeat_path(), path);
    assert_eq!(heartbeat_file_name(PROJECT), "0f8a4cd2094360e3.json");
    let hb = heartbeat(&f.sim);
    let keys: Vec<&str> = hb.as_object().unwrap().keys().map(String::as_str).collect();
    for k in [
        "state",
        "projectPath",
        "port",
        "pid",
        "unityVersion",
        "docsVersion",
        "compiler",
        "domainEpoch",
        "features",
        "timestamp",
        "compileErrors",
    ] {
        assert!(keys.contains(&k), "missing {k}");
    }
    // Written in the Connector's key order.
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("{\"state\":\"ready\",\"projectPath\":"),
        "{text}"
    );
    assert_eq!(hb["projectPath"], PROJECT);
    assert_eq!(hb["port"], f.port());
    assert_eq!(hb["pid"], std::process::id());
    assert_eq!(hb["domainEpoch"], f.sim.domain_epoch());
    assert_eq!(hb["features"], json!(ALL_FEATURES));
    assert_eq!(hb["compileErrors"], false);
    assert_eq!(hb["compiler"]["error"], Value::Null);
    let typed: Heartbeat = serde_json::from_value(hb.clone()).unwrap();
    assert!(typed.supports_strict_catalog());
    // The catalog's project id is the client's computation from projectPath.
    assert_eq!(
        f.sim.project_id(),
        project_id(hb["projectPath"].as_str().unwrap())
    );
}

#[test]
fn rewritten_every_second_without_temp_leftovers() {
    let f = start();
    let first = ts(&heartbeat(&f.sim));
    let newer = wait_for(Duration::from_secs(30), || {
        let t = ts(&heartbeat(&f.sim));
        (t > first).then_some(t)
    });
    assert!(newer.is_some(), "a newer timestamp within a few seconds");
    let dir = f.sim.heartbeat_path().parent().unwrap().to_path_buf();
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| !n.ends_with(".tmp"))
        .collect();
    assert_eq!(names, vec!["0f8a4cd2094360e3.json".to_string()]);
}

#[test]
fn knobs() {
    let f = start();
    let s = &f.sim;
    s.set_state("compiling").unwrap();
    assert_eq!(heartbeat(s)["state"], "compiling");
    s.clear_state().unwrap();
    assert_eq!(heartbeat(s)["state"], "ready");

    s.set_features(vec!["approval_v1".into()]).unwrap();
    assert_eq!(heartbeat(s)["features"], json!(["approval_v1"]));
    s.set_features(vec![]).unwrap();
    assert_eq!(heartbeat(s)["features"], json!([]));

    s.set_heartbeat_epoch(Some("00000000000000000000000000000000"))
        .unwrap();
    assert_eq!(
        heartbeat(s)["domainEpoch"],
        "00000000000000000000000000000000"
    );
    s.set_heartbeat_epoch(None).unwrap();
    assert_eq!(heartbeat(s)["domainEpoch"], s.domain_epoch());

    let dead = hera_connector_sim::dead_pid().unwrap();
    s.set_pid(dead).unwrap();
    assert_eq!(heartbeat(s)["pid"], dead);
    s.set_pid(0).unwrap();
    assert_eq!(heartbeat(s)["pid"], 0);

    s.set_compile_errors(true).unwrap();
    assert_eq!(heartbeat(s)["compileErrors"], true);
    s.set_compile_errors(false).unwrap();
    assert_eq!(heartbeat(s)["compileErrors"], false);

    s.set_heartbeat_port(Some(0)).unwrap();
    assert_eq!(heartbeat(s)["port"], 0);
    s.set_heartbeat_port(None).unwrap();
    assert_eq!(heartbeat(s)["port"], f.port());
}

#[test]
fn frozen_timestamps_stay_stale() {
    let f = start();
    f.sim.freeze_heartbeat(true).unwrap();
    let frozen = ts(&heartbeat(&f.sim));
    std::thread::sleep(Duration::from_millis(1300));
    f.sim.set_state("playing").unwrap();
    let hb = heartbeat(&f.sim);
    assert_eq!(ts(&hb), frozen, "knob writes keep the frozen time");
    assert_eq!(hb["state"], "playing");
    f.sim.freeze_heartbeat(false).unwrap();
    assert!(ts(&heartbeat(&f.sim)) > frozen);
}

#[test]
fn stopped_removed_and_half_written_files() {
    let f = start();
    let s = &f.sim;
    s.write_stopped().unwrap();
    assert_eq!(heartbeat(s)["state"], "stopped");
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(
        heartbeat(s)["state"],
        "stopped",
        "not overwritten by the ticks"
    );
    s.resume_heartbeat().unwrap();
    assert_eq!(heartbeat(s)["state"], "ready");

    s.remove_heartbeat().unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    assert!(!s.heartbeat_path().exists(), "stays gone");
    s.resume_heartbeat().unwrap();
    assert!(s.heartbeat_path().exists());

    s.write_partial_heartbeat().unwrap();
    let bytes = std::fs::read(s.heartbeat_path()).unwrap();
    assert!(!bytes.is_empty());
    assert!(
        serde_json::from_slice::<Value>(&bytes).is_err(),
        "half a file"
    );
    std::thread::sleep(Duration::from_millis(1200));
    assert!(serde_json::from_slice::<Value>(&std::fs::read(s.heartbeat_path()).unwrap()).is_err());
    s.resume_heartbeat().unwrap();
    heartbeat(s);
    // The simulator still answers while its heartbeat misbehaves.
    assert_eq!(
        call(f.port(), "scene", json!({"action":"info"}), &op())["success"],
        true
    );
}

#[test]
fn reload_writes_reloading_then_a_new_epoch() {
    let f = start();
    let old_epoch = f.sim.domain_epoch();
    let port = f.port();
    f.sim.reload(Reload {
        downtime: Duration::from_millis(1500),
        new_port: false,
    });
    let hb = heartbeat(&f.sim);
    assert_eq!(hb["state"], "reloading");
    assert_eq!(hb["domainEpoch"], old_epoch.as_str());
    // No periodic writes while the domain is down: a file that still says `reloading` a tick
    // later carries the same timestamp. (The state, not the listener, tells whether the domain
    // is back: the new domain writes `ready` just before its port is recorded.)
    let during = ts(&hb);
    std::thread::sleep(Duration::from_millis(1100));
    let later = heartbeat(&f.sim);
    if later["state"] == "reloading" {
        assert_eq!(ts(&later), during, "a periodic write during the downtime");
    }
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(30)));
    let hb = heartbeat(&f.sim);
    assert_eq!(hb["state"], "ready");
    assert_eq!(hb["port"], port, "the same port when it is still free");
    assert_ne!(hb["domainEpoch"], old_epoch.as_str());
    assert_eq!(hb["domainEpoch"], f.sim.domain_epoch());
}

#[test]
fn several_instances_side_by_side() {
    let home = tempfile::tempdir().unwrap();
    let start_at =
        |path: &str| Simulator::start_background(SimConfig::new(home.path(), path)).unwrap();
    let a = start_at("/work/Game");
    let b = start_at("/work/Game2");
    let c = start_at("/work/./Game");
    assert_ne!(a.heartbeat_path(), b.heartbeat_path());
    assert_ne!(
        a.heartbeat_path(),
        c.heartbeat_path(),
        "the file name hashes the path as written"
    );
    assert_eq!(
        a.project_id(),
        c.project_id(),
        "the project id normalizes it"
    );
    // Same port advertised by two projects.
    b.set_heartbeat_port(Some(a.port())).unwrap();
    assert_eq!(heartbeat(&b)["port"], a.port());
    let files = std::fs::read_dir(home.path().join(".hera-agent-unity/instances"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    assert_eq!(files, 3);
    drop(a);
    let hb: Value = serde_json::from_slice(
        &std::fs::read(
            home.path()
                .join(".hera-agent-unity/instances")
                .join(heartbeat_file_name("/work/Game")),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        hb["state"], "stopped",
        "dropping the last handle quits the Editor"
    );
}

#[test]
fn reloads_the_editor_asks_for() {
    let f = start_with(|c| c.reload_downtime = Duration::from_millis(300));
    let p = f.port();
    let epoch = f.sim.domain_epoch();
    // A requested script compile answers first, then reloads the domain.
    let v = call(p, "refresh_unity", json!({"compile":"request"}), &op());
    assert_eq!(v["success"], true, "{v}");
    let second = wait_for(Duration::from_secs(30), || {
        let e = f.sim.domain_epoch();
        (e != epoch && f.sim.port() != 0).then_some(e)
    })
    .expect("a reload after the compile request");
    // The new domain listens first, then learns that the compile is over: `ready` follows.
    assert!(
        wait_for(Duration::from_secs(30), || (heartbeat(&f.sim)["state"]
            == "ready")
            .then_some(()))
        .is_some(),
        "ready after the compile reload: {}",
        heartbeat(&f.sim)
    );
    // Entering play mode with domain reload on: a reload, and the Editor is playing after it.
    f.sim
        .with_editor(|ed| ed.set_play_mode_reloads_domain(true));
    let v = call(f.port(), "manage_editor", json!({"action":"play"}), &op());
    assert_eq!(v["success"], true, "{v}");
    assert!(
        wait_for(Duration::from_secs(30), || {
            (f.sim.domain_epoch() != second && f.sim.port() != 0).then_some(())
        })
        .is_some()
    );
    assert!(
        wait_for(Duration::from_secs(30), || (heartbeat(&f.sim)["state"]
            == "playing")
            .then_some(()))
        .is_some()
    );
}
