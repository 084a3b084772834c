//! Tests of `tsg::json`: the bytes must be serde_json's for the same model, strings of every
//! shape included, and the holes must be exactly the anchor-less targets.

use super::{guide, string, Hole};
use crate::tsg::{parse_guide, Guide, SafetyClass};

fn ours(g: &Guide) -> (String, Vec<Hole>) {
    let (mut out, mut holes) = (Vec::new(), Vec::new());
    guide(g, &mut out, &mut holes);
    (String::from_utf8(out).expect("utf-8"), holes)
}

fn serde(g: &Guide) -> String {
    serde_json::to_string(g).expect("serialise")
}

#[test]
fn every_ascii_byte_and_some_unicode_escape_as_serde_json_does() {
    let mut all: String = (0u8..128).map(char::from).collect();
    all.push_str("é → ✓ 🙂 \u{7f}\u{2028}");
    // Each byte alone, and at every offset of the eight-byte fast path.
    let mut cases: Vec<String> = (0u8..128).map(|b| char::from(b).to_string()).collect();
    for pad in 0..9 {
        cases.push(format!("{}{all}", "a".repeat(pad)));
        cases.push(format!("{}\"{}", "x".repeat(pad), "y".repeat(pad)));
        cases.push(format!("{}\\", "é".repeat(pad)));
    }
    cases.push(String::new());
    cases.push("plain words with no escapes, longer than eight bytes".into());
    for s in cases {
        let mut out = Vec::new();
        string(&mut out, &s);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&s).unwrap(),
            "{s:?}"
        );
    }
}

const GUIDE: &str = r##"---
title: Front "matter" title
alerts:
  DiskFull: "#mitigate"
owners: [team-a, "team\\b"]
inputs:
  REGION: westus3
  CLUSTER:
---

# Disk full	on "node"

| Alert | Go to |
| --- | --- |
| DiskFull | [Mitigate](#mitigate) |

See [the other guide](other.md) and [an anchor](other.md#step-2).

**Goal:** free space\ on the node.

> **Risk:** deleting logs loses evidence.

> [!WARNING]
> Do not reboot.

## Diagnose

- [ ] Check `df -h`
- [x] Checked the alert

```bash {name=df timeout=30s}
kubectl --context "$CTX" -n kube-system get pods
df -h "${MOUNT}" <node-name>
```

```promql
sum(rate(node_disk_written_bytes_total[5m]))
```

```console
$ oc rsh pod/db-0
sh-5.1$ psql -c 'select 1'
 ?column?
```

## Mitigate

If the disk is still full, go to [Escalate](#escalate).

```bash
kubectl delete pod x -n ns
```

## Validation

- The alert clears.

## Escalate

| Team | When | Channel | Evidence |
| --- | --- | --- | --- |
| Storage | still full | #storage | df output; logs |
"##;

#[test]
fn a_guide_with_every_kind_of_field_is_written_as_serde_writes_it() {
    let mut g = parse_guide("dir/disk \"full\".md", GUIDE);
    assert!(g.front_matter.is_some(), "{:?}", g.problems);
    let probes: Vec<_> = g.nodes.iter().flat_map(|n| &n.probes).collect();
    assert!(probes.len() >= 3, "{probes:?}");
    assert!(probes.iter().any(|p| !p.attrs.is_empty()));
    assert!(!g.escalations.is_empty() && !g.routes.is_empty());
    assert_eq!(ours(&g).0, serde(&g));
    // With safety classes filled in, as `tree --json` writes them.
    let classes = [
        SafetyClass::ReadOnly,
        SafetyClass::Mutating,
        SafetyClass::Unknown,
    ];
    for (i, p) in g.nodes.iter_mut().flat_map(|n| &mut n.probes).enumerate() {
        p.safety = Some(classes[i % classes.len()]);
    }
    assert_eq!(ours(&g).0, serde(&g));
}

#[test]
fn an_empty_guide_and_one_without_front_matter_match_serde() {
    for text in [
        "",
        "just text\n",
        "# Only a title\n",
        "## No H1\n\n```\nls\n```\n",
    ] {
        let g = parse_guide("x.md", text);
        assert_eq!(ours(&g).0, serde(&g), "{text:?}");
    }
}

#[test]
fn holes_are_the_targets_without_an_anchor_and_cover_their_json_string() {
    let g = parse_guide(
        "a.md",
        "# A\n\nSee [b](b.md), [c](c.md#x) and [here](#a).\n\n## Next\n\nThen [d](sub/d.md).\n",
    );
    let (json, holes) = ours(&g);
    let tos: Vec<&str> = holes.iter().map(|h| h.to.as_str()).collect();
    assert_eq!(tos, ["b.md", "sub/d.md"], "{json}");
    for h in &holes {
        assert_eq!(&json[h.start..h.end], format!("\"{}\"", h.to));
    }
}
