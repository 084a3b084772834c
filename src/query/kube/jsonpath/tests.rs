//! Tests of the kubectl JSONPath templates: each form against the answer kubectl prints.

use serde_json::json;

use super::*;

fn list() -> Value {
    json!({"kind": "List", "metadata": {"resourceVersion": ""}, "items": [
        {"metadata": {"name": "a", "labels": {"app": "x"}}, "spec": {"replicas": 0},
         "status": {"capacity": {"aro.openshift.io/swift-nic": "7"},
                    "conditions": [{"type": "Ready", "status": "True"}]}},
        {"metadata": {"name": "b"}, "spec": {"replicas": 3}},
        {"metadata": {"name": "c"}, "spec": {"replicas": 1, "ratio": 0.5}}]})
}

fn ok(t: &str) -> String {
    apply(t, &list()).unwrap_or_else(|e| panic!("{t}: {e}"))
}

#[test]
fn fields_indexes_and_escaped_dots() {
    assert_eq!(ok("{.items[0].metadata.name}"), "a");
    assert_eq!(ok("{.items[*].metadata.name}"), "a b c");
    assert_eq!(ok("n={.items[-1].metadata.name}"), "n=c");
    assert_eq!(
        ok(r"{.items[0].status.capacity.aro\.openshift\.io/swift-nic}"),
        "7"
    );
    assert_eq!(ok("{.items[0].metadata.labels}"), r#"{"app":"x"}"#);
    assert_eq!(ok("{.items[0].metadata['labels']}"), r#"{"app":"x"}"#);
    assert_eq!(ok("{.items[2].spec.ratio}"), "0.5");
    assert_eq!(
        ok("{.items[0].missing.key}"),
        "",
        "missing keys print nothing"
    );
    assert_eq!(ok("{$.kind}"), "List");
}

#[test]
fn slices_and_unions() {
    assert_eq!(ok("{.items[-1:].metadata.name}"), "c");
    assert_eq!(ok("{.items[0:2].metadata.name}"), "a b");
    assert_eq!(ok("{.items[::2].metadata.name}"), "a c");
    assert_eq!(ok("{.items[-2:].metadata.name}"), "b c");
    assert_eq!(ok("{.items[0,2].metadata.name}"), "a c");
    assert_eq!(ok("{.items[1:1].metadata.name}"), "");
    let e = apply("{.items[5].metadata.name}", &list()).unwrap_err();
    assert!(e.contains("out of bounds"), "{e}");
    assert!(
        apply("{.metadata[0]}", &list()).is_err(),
        "an index on a map"
    );
}

#[test]
fn recursive_descent() {
    assert_eq!(ok("{..metadata.name}"), "a b c");
    assert_eq!(ok("{..replicas}"), "0 3 1");
}

#[test]
fn filters_compare_like_kubectl() {
    assert_eq!(ok("{.items[?(@.spec.replicas>0)].metadata.name}"), "b c");
    assert_eq!(ok("{.items[?(@.spec.replicas>=1)].metadata.name}"), "b c");
    assert_eq!(ok("{.items[?(@.spec.replicas<1)].metadata.name}"), "a");
    assert_eq!(ok("{.items[?(@.spec.replicas<=1)].metadata.name}"), "a c");
    assert_eq!(ok("{.items[?(@.spec.replicas!=3)].metadata.name}"), "a c");
    assert_eq!(ok("{.items[?(@.metadata.name==\"b\")].spec.replicas}"), "3");
    assert_eq!(ok("{.items[?(@.metadata.name=='b')].spec.replicas}"), "3");
    assert_eq!(ok("{.items[?(@.metadata.labels)].metadata.name}"), "a");
    assert_eq!(
        ok("{.items[0].status.conditions[?(@.type==\"Ready\")].status}"),
        "True"
    );
    let e = apply("{.items[?(@.spec.replicas==\"3\")].metadata.name}", &list()).unwrap_err();
    assert!(e.contains("incompatible types"), "{e}");
    assert!(apply("{.metadata[?(@.x==1)]}", &list()).is_err());
}

#[test]
fn range_end_and_literals() {
    assert_eq!(
        ok("{range .items[*]}{.metadata.name}{\"\\t\"}{.spec.replicas}{\"\\n\"}{end}"),
        "a\t0\nb\t3\nc\t1\n"
    );
    assert_eq!(
        ok("{range .items[?(@.spec.replicas>0)]}[{.metadata.name}]{end}done"),
        "[b][c]done"
    );
    assert_eq!(
        ok("{range .items}{.kind}{end}"),
        "",
        "range over one list value"
    );
    assert!(apply("{range .items[*]}{.x}", &list()).is_err());
    assert!(apply("{.items[0", &list()).is_err());
    assert!(check("{end}").is_err());
    assert!(check("{.items[?(@.a=~/x/)]}").is_err());
}

#[test]
fn relaxed_expressions_and_go_values() {
    for e in [
        "metadata.name",
        ".metadata.name",
        "{metadata.name}",
        "{.metadata.name}",
    ] {
        assert_eq!(relaxed(e).unwrap(), "{.metadata.name}");
    }
    assert!(relaxed("{.a}{.b}").is_err());
    let l = list();
    let v = values(".metadata.labels", &l["items"][0]).unwrap();
    assert_eq!(go_v(v[0]), "map[app:x]");
    assert_eq!(go_v(&json!(["a", 1])), "[a 1]");
    assert_eq!(print(&json!(1000000.5)), "1.0000005e+06");
    assert_eq!(print(&json!({"a": "<b>"})), r#"{"a":"\u003cb\u003e"}"#);
}
