//! The worked examples the contract's source documentation prints (kept here as data), checked
//! against this crate.
use hera_connector_contract::{approval, canonical, identity};

#[test]
fn documented_vectors() {
    assert_eq!(
        canonical::arguments_hash_text("{}").unwrap(),
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    );
    assert_eq!(
        canonical::arguments_hash_text(r#"{"action":"info"}"#).unwrap(),
        "sha256:7c3721cd1fb0b0551280f80624c364bd0edff4849d4ad9d648af8bd8204049b4"
    );
    assert_eq!(
        canonical::arguments_hash_text(r#"{"number":1,"html":"<tag>"}"#).unwrap(),
        "sha256:12c9000af679f928aa1e1d14fb37044f55485f0be49dd3620f59004788e17595"
    );
    assert_eq!(
        canonical::arguments_hash_text(r#"{"path":"Assets/Scenes/Level2.unity","action":"close"}"#)
            .unwrap(),
        "sha256:13b4369de9a5f6e701c1fb7a404d920b43c0081476be668c3e91de215e8e7cd5"
    );
    assert_eq!(
        identity::heartbeat_file_name("/Users/me/Unity/MyGame"),
        "0f8a4cd2094360e3.json"
    );
    assert_eq!(
        identity::heartbeat_file_name(r"C:\Users\me\Unity\MyGame"),
        "47b9f61296f5ad0d.json"
    );
    assert_eq!(
        identity::project_id_for("/Users/me/Unity/MyGame", identity::PathFlavor::Unix),
        "sha256:eddb71bd6dcc1509ea1fe8ad4aa23d4e01088ce758c86fe03005fd7107de2a99"
    );
    assert_eq!(
        identity::project_id_for(r"C:\Users\me\Unity\MyGame", identity::PathFlavor::Windows),
        "sha256:8887cfa7ffea851e8381054cbf7e9d3d1a4074da77f38182aa05476d70d1511b"
    );
    let claims: approval::ApprovalClaims = serde_json::from_str(r#"{"version":1,"operation_id":"op_0123456789abcdef0123456789abcdef","tool":"scene","action":"close","arguments_hash":"sha256:13b4369de9a5f6e701c1fb7a404d920b43c0081476be668c3e91de215e8e7cd5","risk_class":"destructive","project_id":"sha256:eddb71bd6dcc1509ea1fe8ad4aa23d4e01088ce758c86fe03005fd7107de2a99","expires_at_ms":1767225900000,"single_use":true}"#).unwrap();
    let token = approval::sign(&[1u8; 32], &claims);
    assert_eq!(
        token.split('.').nth(1).unwrap(),
        "dRSeQ6P2Mbbtoui-0AiAgcsHsP5z9UTSfnhYRdozz_I"
    );
}
