//! The credential-screening corpus: synthetic secrets in the formats a Unity project, its build
//! scripts and its CI files really hold, and benign values that look like them. Every secret
//! must be withheld and every benign value kept, inline and spilled alike.
//!
//! The secrets are made up (random-looking, never issued) and assembled from pieces at run time,
//! so that the source file itself does not look like a leak to a scanner.

use hera_agent_unity::{
    InlineCap, ProjectKey, ResultSafety, ResultShape, ResultStore, ShapeContext, StoreConfig,
    screen, shape_result,
};
use serde_json::{Value, json};

/// `(format, text)`: one synthetic secret as it would appear in a result string.
pub fn secrets() -> Vec<(&'static str, String)> {
    let j = |parts: &[&str]| parts.concat();
    let pem_body = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Ktq8CqpVq5xZl0y7cAJ9e1vQ4mW\n";
    let rsa_pem = j(&[
        "-----BEGIN RSA ",
        "PRIVATE KEY-----\n",
        pem_body,
        "-----END RSA PRIVATE KEY-----",
    ]);
    use base64::Engine;
    let wrapped = base64::engine::general_purpose::STANDARD.encode(rsa_pem.as_bytes());
    vec![
        ("aws access key id", j(&["key AKIA", "QYLPMN5HHHFPZAM2"])),
        (
            "aws secret key, INI",
            j(&[
                "[default]\naws_access_key_id = AKIA",
                "QYLPMN5HHHFPZAM2\naws_secret_access_key = ",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Hd3Lk2m\n",
            ]),
        ),
        (
            "aws secret key, .env",
            j(&[
                "AWS_SECRET_ACCESS_KEY=",
                "9dR4vQ2xLm7PzT1bN8kW3yH6sJ0fG5cA2eU4iO7p",
            ]),
        ),
        (
            "azure storage connection string",
            j(&[
                "DefaultEndpointsProtocol=https;AccountName=unitybuilds;AccountKey=",
                "q8W3e5R7t9Y1u3I5o7P9a1S3d5F7g9H1j3K5l7Z9x1C3v5B7n9M1q3W5e7R9t1Y3u5I7o9P1a3S5d7F9g1H3j5K==",
                ";EndpointSuffix=core.windows.net",
            ]),
        ),
        (
            "github classic token",
            j(&["ghp_", "Zx8Kq2Lm4Np6Rt8Vw0Yb2Dc4Fe6Hg8Jk0Ml2"]),
        ),
        (
            "github fine-grained token",
            j(&[
                "github_pat_",
                "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345678",
            ]),
        ),
        (
            "gitlab personal token",
            j(&["GITLAB_TOKEN=glpat-", "x7Kp2Qm9Zr4Lt6Wv8Ny1"]),
        ),
        (
            "gitlab runner token",
            j(&["runner token glrt-", "t3_Kx9Pq2Lm7Zr4Vw8Ny1Bc5D"]),
        ),
        (
            "npm token, .npmrc",
            j(&[
                "//registry.npmjs.org/:_authToken=npm_",
                "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            ]),
        ),
        (
            "pypi token",
            j(&[
                "pypi-AgEIcHlwaS5vcmc",
                "CJDk2YzE0ZTQ3LWE1ZjctNGM2Zi05ZTBlLTM1NTg5N2Q5ZjE4NQACKlszLCJmZGE0YjVlNi1jMzQ2LTQ2ZDQtYTM0Ny0xOTQ4OTc5MGE4NjEiXQAABiA",
            ]),
        ),
        (
            "slack bot token",
            j(&["xoxb-", "2736481920-4827361902846-Kq7Lm2Np9Rt4Vw6Yb8Dc1Fe3"]),
        ),
        (
            "slack webhook",
            j(&[
                "https://hooks.slack.com/services/",
                "T02K8L9M1/B04N7P2Q3R5/kX9pL2mQ7rT4vW8nY1bC5dF3",
            ]),
        ),
        (
            "discord webhook",
            j(&[
                "https://discord.com/api/webhooks/",
                "1123456789012345678/Kq7Lm2Np9Rt4Vw6Yb8Dc1Fe3Gh5Jk7Lz0Xc2Vb4Nm6Qw8Er1Ty3Ui5Op7As9Df2Gh4Jk6",
            ]),
        ),
        (
            "telegram bot token",
            j(&[
                "TELEGRAM_BOT_TOKEN=",
                "5723849163:AAHk2Lm9Np4Rt7Vw1Yb3Dc6Fe8Gh0Jk2Ml5",
            ]),
        ),
        (
            "stripe live secret key",
            j(&["sk_live_", "51Hx8KqL2mN4pR6tV8wY0bD2fH4jK6mP8"]),
        ),
        (
            "stripe restricted key",
            j(&["rk_live_", "51Hx8KqL2mN4pR6tV8wY0bD2fH4jK6mP8zQ"]),
        ),
        (
            "openai key",
            j(&[
                "OPENAI_API_KEY=sk-",
                "Ab3De6Gh9Jk2Mn5Pq8St",
                "T3BlbkFJ",
                "Vw1Yz4Bc7Ef0Hi3Kl6No",
            ]),
        ),
        (
            "anthropic key",
            j(&[
                "sk-ant-api03-",
                "Kx9Pq2Lm7Zr4Vw8Ny1Bc5Df3Gh6Jk0Mn4Qs7Tu1Wx5Yz8Ab2Cd6Ef9Gh3Ij7Kl0Mn4Op8Qr1St5Uv9Wx2Yz6Ab0Cd4Ef7",
                "AA",
            ]),
        ),
        (
            "google api key",
            j(&["AIza", "SyD3k9Lm2Np7Qr4St8Uv1Wx5Yz0Ab6Cd2Ef"]),
        ),
        (
            "sendgrid key",
            j(&[
                "SG.",
                "ngeVfQFYQlKU0ufo8x5d1A.",
                "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
            ]),
        ),
        (
            "twilio api key",
            j(&["TWILIO_API_KEY=SK", "9f3a7c1e5b2d4f6a8c0e2b4d6f8a1c3e"]),
        ),
        (
            "shopify token",
            j(&["shpat_", "4f8a2c6e1b3d5f7a9c0e2b4d6f8a1c3e"]),
        ),
        ("rsa private key", rsa_pem.clone()),
        (
            "openssh private key",
            j(&[
                "-----BEGIN OPENSSH ",
                "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----",
            ]),
        ),
        ("base64-wrapped private key", wrapped.clone()),
        (
            "base64-wrapped private key in a variable",
            format!("SIGNING_KEY_B64={wrapped}"),
        ),
        (
            "jwt",
            j(&[
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.",
                "eyJzdWIiOiJ1bml0eS1idWlsZCIsImlhdCI6MTcwMDAwMDAwMH0.",
                "Qm7zK2pL9xR4tV8wN1bC5dF3gH6jK0mP4qS7uW1yZ5a",
            ]),
        ),
        (
            "bearer header",
            j(&["Authorization: Bearer ", "d8Fk2Lm9Np4Rt7Vw1Yb3Dc6Fe8Gh0Jk"]),
        ),
        (
            ".env password",
            "DB_PASSWORD=CorrectHorse-Battery9".to_string(),
        ),
        (
            "yaml password",
            "database:\n  host: db.local\n  password: \"s3cr3t-Value!\"\n".to_string(),
        ),
        (
            "ini password",
            "[smtp]\nuser = builds\npassword = Tr0ub4dor&3\n".to_string(),
        ),
        (
            "json password in a log line",
            r#"posting {"username":"ci","password":"Hunter2-Build"} to the server"#.to_string(),
        ),
        (
            "url credentials, database",
            "postgres://admin:S3cretPass@db.internal:5432/leaderboard".to_string(),
        ),
        (
            "url credentials, git remote",
            "https://deploy:gh0stP4ssw0rd@git.example.com/studio/game.git".to_string(),
        ),
        (
            "unity keystore password, C#",
            "PlayerSettings.Android.keystorePass = \"myKeystorePass1\";".to_string(),
        ),
        (
            "unity key alias password, CI env",
            "UNITY_KEYALIAS_PASS=release-alias-42".to_string(),
        ),
        (
            "unity keystore password, yaml",
            "android:\n  keystorePassword: 'Unity-Release-2026'\n".to_string(),
        ),
        (
            "client secret assignment",
            "client_secret = \"Zq8Kx2Lm4Np6Rt8Vw0Yb2Dc4\"".to_string(),
        ),
    ]
}

/// `(kind, text)`: values that look like secrets and are not.
pub fn benign() -> Vec<(&'static str, String)> {
    vec![
        ("commit sha", "commit 3f9a2b7c1d4e6f8a0b2c4d6e8f1a3b5c7d9e0f12".into()),
        ("short sha", "HEAD is now at 3f9a2b7 Fix lightmap seams".into()),
        ("uuid", "session 550e8400-e29b-41d4-a716-446655440000 started".into()),
        (
            "sha256 digest",
            "sha256:eddb71bd6dcc1509ea1fe8ad4aa23d4e01088ce758c86fe03005fd7107de2a99".into(),
        ),
        (
            "unity meta guid",
            "fileFormatVersion: 2\nguid: 8f1b2c3d4e5f60718293a4b5c6d7e8f9\nTextureImporter:\n".into(),
        ),
        (
            "unity guid reference",
            "m_Script: {fileID: 11500000, guid: 4e3a1b2c9d8f7e6a5b4c3d2e1f0a9b8c, type: 3}".into(),
        ),
        (
            "package lock hash",
            r#""com.unity.inputsystem": {"version": "1.7.0", "hash": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"}"#.into(),
        ),
        (
            "base64 png",
            "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAK0lEQVR4nGNgGAWjYBSMglEwCkbBKBgFo2AUjIJRMApGwSgYBaNgFIyCUQAAKxQAAWzJ0qkAAAAASUVORK5CYII=".into(),
        ),
        (
            "long asset path",
            "Assets/Art/Characters/Hero/Textures/Hero_Body_Albedo_4096x4096_v12_FINAL_approved.png".into(),
        ),
        (
            "long asset path with a secret-ish word",
            "Assets/Scenes/Levels/World3/SecretArea_KeyRoom_Token_Pickup_Variant_02.unity".into(),
        ),
        (
            "password read in code",
            r#"var p = PlayerPrefs.GetString("password");"#.into(),
        ),
        (
            "password field reference",
            "passwordField: {fileID: 1873450926}\n  m_ContentType: 7".into(),
        ),
        (
            "placeholder in an env template",
            "DB_PASSWORD=${DB_PASSWORD}\nAPI_KEY=<your-key-here>".into(),
        ),
        (
            "input axis yaml",
            "m_Name: Horizontal\n  descriptiveName: \n  negativeButton: left\n  positiveButton: right\n  altNegativeButton: a".into(),
        ),
        ("prose", "Use a Bearer token to authenticate; the secret door opens with the key.".into()),
        (
            "public key",
            "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----".into(),
        ),
        ("unity version", "Unity 6000.3.5f2 (b2e806cf271c)".into()),
        (
            "animation keys",
            "m_Curve:\n  - serializedVersion: 3\n    time: 0\n    value: 1\n    inSlope: 0\n keyCount: 120".into(),
        ),
        (
            "operation id",
            "operation op_0123456789abcdef0123456789abcdef succeeded".into(),
        ),
        (
            "url without a password",
            "https://git@github.com/studio/game.git and https://docs.unity3d.com/Manual/index.html".into(),
        ),
        (
            "token count",
            r#"{"tokenCount": 4096, "cancellationToken": "none", "hasPassword": false}"#.into(),
        ),
    ]
}

/// One JSON line for `tools/reliability/run`, when it asks (`HERA_RELIABILITY_OUT`).
fn report(line: Value) {
    if let Ok(path) = std::env::var("HERA_RELIABILITY_OUT") {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        writeln!(f, "{line}").unwrap();
    }
}

fn as_result(text: &str) -> Value {
    json!({"success": true, "message": "ok", "data": {"text": text}})
}

#[test]
fn every_synthetic_secret_is_withheld() {
    let all = secrets();
    let formats: std::collections::HashSet<&str> = all
        .iter()
        .map(|(f, _)| f.split(',').next().unwrap())
        .collect();
    assert!(all.len() >= 30, "{} secrets", all.len());
    assert!(formats.len() >= 20, "{} formats", formats.len());
    let missed: Vec<&str> = all
        .iter()
        .filter(|(_, s)| screen(&as_result(s)).is_clean())
        .map(|(f, _)| *f)
        .collect();
    report(
        json!({"kind": "secrets", "secrets": all.len(), "formats": formats.len(),
        "withheld": all.len() - missed.len()}),
    );
    assert!(missed.is_empty(), "secrets not withheld: {missed:?}");
}

#[test]
fn every_benign_look_alike_is_kept() {
    let all = benign();
    assert!(all.len() >= 10);
    let flagged: Vec<String> = all
        .iter()
        .filter_map(|(k, s)| {
            let sc = screen(&as_result(s));
            (!sc.is_clean()).then(|| format!("{k}: {:?}", sc.findings))
        })
        .collect();
    report(json!({"kind": "benign", "benign": all.len(), "kept": all.len() - flagged.len()}));
    assert!(flagged.is_empty(), "benign values withheld: {flagged:#?}");
}

fn shape(envelope: &Value, read_only: bool, store: &ResultStore, project: &ProjectKey) -> Value {
    shape_result(
        envelope,
        &ShapeContext {
            safety: ResultSafety::Resolved {
                read_only,
                arbitrary_code: false,
            },
            cap: InlineCap::default(),
            store,
            project,
            label: "corpus",
            operation_id: Some("op_0123456789abcdef0123456789abcdef"),
        },
    )
    .structured
}

#[test]
fn spilled_results_are_screened_before_anything_is_stored_and_mutations_keep_their_id() {
    let home = tempfile::tempdir().unwrap();
    let store = ResultStore::new(
        &home.path().join(".hera-agent-unity"),
        StoreConfig::default(),
    );
    let project =
        ProjectKey::from_project_id(&hera_connector_contract::identity::project_id("/work/Game"))
            .unwrap();
    let filler: Vec<Value> = (0..3000)
        .map(|i| json!({"name": format!("Cube {i}")}))
        .collect();
    for (format, secret) in secrets() {
        // Far over the inline cap: this would spill if it were clean.
        let big = json!({"success": true, "message": "ok",
            "data": {"items": filler, "config": secret}});
        let out = shape(&big, true, &store, &project);
        assert_eq!(out["code"], "RESULT_WITHHELD", "{format}");
        // A mutation that succeeded is withheld without hiding that it happened.
        let small = as_result(&secret);
        let out = shape(&small, false, &store, &project);
        assert_eq!(out["code"], "RESULT_WITHHELD", "{format}");
        assert_eq!(
            out["operation_id"], "op_0123456789abcdef0123456789abcdef",
            "{format}"
        );
        assert_eq!(out["success"], true, "{format}");
    }
    // Nothing was written to the cache, in clear or otherwise.
    assert!(store.list(&project).unwrap().is_empty());
    // A clean big result still spills.
    let clean = json!({"success": true, "message": "ok", "data": {"items": filler}});
    let out = shape_result(
        &clean,
        &ShapeContext {
            safety: ResultSafety::Resolved {
                read_only: true,
                arbitrary_code: false,
            },
            cap: InlineCap::default(),
            store: &store,
            project: &project,
            label: "corpus",
            operation_id: None,
        },
    );
    assert_eq!(out.shape, ResultShape::Spilled);
}
