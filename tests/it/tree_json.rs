//! `tsgnav tree --json` keeps the machine interface of DESIGN.md.

#[test]
fn tree_json_shape() {
    let out = crate::common::bin()
        .args(["tree", "--json", "tsg/"])
        .current_dir(crate::common::root())
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let guides = v["guides"].as_array().expect("guides");
    assert_eq!(guides.len(), 3);
    let swift = guides
        .iter()
        .find(|g| g["path"] == "swift-networking.md")
        .expect("swift guide");
    assert!(swift["title"].as_str().is_some_and(|t| !t.is_empty()));
    for key in ["nodes", "routes", "escalations"] {
        assert!(
            swift[key].as_array().is_some_and(|a| !a.is_empty()),
            "{key}"
        );
    }
    let node = swift["nodes"]
        .as_array()
        .and_then(|n| {
            n.iter()
                .find(|n| !n["probes"].as_array().is_some_and(|p| p.is_empty()))
        })
        .expect("a node with probes");
    for key in [
        "id",
        "title",
        "level",
        "role",
        "parent",
        "fields",
        "checklist",
        "probes",
        "edges",
    ] {
        assert!(node.get(key).is_some(), "node key {key}");
    }
    let probe = &node["probes"][0];
    for key in ["lang", "safety", "vars", "line"] {
        assert!(probe.get(key).is_some(), "probe key {key}");
    }
    assert!([
        "read-only",
        "mutating",
        "interactive",
        "long-running",
        "unknown"
    ]
    .contains(&probe["safety"].as_str().unwrap_or("")));
    let route = &swift["routes"][0];
    assert!(route["alert"].is_string() && route["to"].as_str().is_some_and(|t| t.contains('#')));
    let esc = &swift["escalations"][0];
    assert!(esc["team"].is_string() && esc["evidence"].is_array());
    // Mutating probes are labelled as such somewhere in the bundled swift guide.
    let classes: Vec<&str> = swift["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|n| n["probes"].as_array().into_iter().flatten())
        .filter_map(|p| p["safety"].as_str())
        .collect();
    assert!(
        classes.contains(&"mutating") && classes.contains(&"read-only"),
        "{classes:?}"
    );
}

#[test]
fn no_command_shows_the_bundled_tree() {
    let out = crate::common::bin()
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("tsg/swift-networking.md — "), "{text}");
    assert!(text.contains("[blast-radius]"));
}
