//! kube-rs against `tsgnav::sim`: discovery with CRDs, selectors, patches (merge, JSON,
//! strategic), conflicts and invalid input as `Status` errors, finalizers, the scale
//! subresource, logs, watch, many clusters behind one server, and the Maestro REST API.

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{
    Api, DeleteParams, DynamicObject, ListParams, LogParams, Patch, PatchParams, WatchEvent,
    WatchParams,
};
use kube::discovery::{Discovery, Scope};
use serde_json::{json, Value};

use super::sim_support::{client, start, OCM_NS};

fn api_code<T: std::fmt::Debug>(r: Result<T, kube::Error>) -> (u16, String) {
    match r {
        Err(kube::Error::Api(s)) => (s.code, s.message),
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_selectors_and_patches() {
    let sim = start("swift", None).await;
    let c = client(&sim.kubeconfig, None).await;
    let d = Discovery::new(c.clone()).run().await.expect("discovery");
    let (ar, caps) = d
        .groups()
        .flat_map(|g| g.recommended_resources())
        .find(|(r, _)| r.kind == "MultitenantPodNetworkConfig")
        .expect("mtpnc discovered");
    assert_eq!(caps.scope, Scope::Namespaced);
    let mtpnc: Api<DynamicObject> = Api::namespaced_with(c.clone(), OCM_NS, &ar);
    assert_eq!(
        mtpnc
            .list(&ListParams::default())
            .await
            .expect("list")
            .items
            .len(),
        3
    );
    let (_, caps) = d
        .groups()
        .flat_map(|g| g.recommended_resources())
        .find(|(r, _)| r.kind == "NodeInfo")
        .expect("nodeinfo");
    assert_eq!(caps.scope, Scope::Cluster);

    let pods: Api<Pod> = Api::all(c.clone());
    let lp = ListParams::default()
        .labels("kubernetes.azure.com/pod-network-instance")
        .fields("status.phase=Pending");
    assert_eq!(pods.list(&lp).await.expect("list").items.len(), 2);
    let lp = ListParams::default()
        .labels("k8s-app notin (azure-cns),app in (private-router,mgmt-agent),!nope");
    assert_eq!(pods.list(&lp).await.expect("list").items.len(), 4);
    let lp = ListParams::default()
        .fields("spec.nodeName=aks-userswft-31562873-vmss000001,status.phase!=Pending");
    assert_eq!(pods.list(&lp).await.expect("list").items.len(), 1);
    let (code, msg) = api_code(pods.list(&ListParams::default().labels("app in web")).await);
    assert_eq!(code, 400, "{msg}");

    let deps: Api<Deployment> = Api::namespaced(c.clone(), "mgmt-agent");
    let d1 = deps
        .patch(
            "mgmt-agent",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"x": "1"}}})),
        )
        .await
        .expect("merge");
    assert_eq!(
        d1.metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("x"))
            .map(String::as_str),
        Some("1")
    );
    let d2 = deps.patch("mgmt-agent", &PatchParams::default(), &Patch::Strategic(json!({"spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "now"}}}}}))).await.expect("strategic");
    assert_eq!(
        d2.metadata.generation,
        Some(2),
        "a spec change bumps the generation"
    );
    let restarted: Api<Pod> = Api::namespaced(c.clone(), "mgmt-agent");
    let names: Vec<String> = restarted
        .list(&ListParams::default())
        .await
        .expect("pods")
        .items
        .into_iter()
        .filter_map(|p| p.metadata.name)
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert_ne!(
        names[0], "mgmt-agent-84d9c5f7b6-mx2hq",
        "a template change replaces the pods"
    );
    let json_patch = |ops: Value| {
        axum::http::Request::patch("/apis/apps/v1/namespaces/mgmt-agent/deployments/mgmt-agent")
            .header("content-type", "application/json-patch+json")
            .body(ops.to_string().into_bytes())
            .expect("request")
    };
    let d3: Value = c
        .request(json_patch(
            json!([{"op": "replace", "path": "/metadata/labels/x", "value": "2"}]),
        ))
        .await
        .expect("json patch");
    assert_eq!(d3["metadata"]["labels"]["x"], "2");
    let (code, msg) = api_code(
        c.request::<Value>(json_patch(json!([{"op": "remove", "path": "/spec/nope"}])))
            .await,
    );
    assert_eq!(code, 422, "{msg}");
    assert!(msg.contains("/spec/nope"), "{msg}");
    let mut stale = d1.clone();
    stale.metadata.managed_fields = None;
    let (code, msg) = api_code(
        deps.replace("mgmt-agent", &Default::default(), &stale)
            .await,
    );
    assert_eq!(code, 409, "{msg}");
    let (code, msg) = api_code(deps.get("nope").await);
    assert_eq!(
        (code, msg.as_str()),
        (404, "deployments.apps \"nope\" not found")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finalizers_scale_logs_and_watch() {
    let sim = start("swift", None).await;
    let c = client(&sim.kubeconfig, None).await;
    let ar = kube::discovery::ApiResource::from_gvk_with_plural(
        &kube::core::GroupVersionKind::gvk(
            "multitenancy.acn.azure.com",
            "v1alpha1",
            "MultitenantPodNetworkConfig",
        ),
        "multitenantpodnetworkconfigs",
    );
    let mtpnc: Api<DynamicObject> = Api::namespaced_with(c.clone(), OCM_NS, &ar);
    let name = "router-6f8b7c9d5-9vtx2";
    let mut w = mtpnc
        .watch(
            &WatchParams::default().fields(&format!("metadata.name={name}")),
            "0",
        )
        .await
        .expect("watch")
        .boxed();
    let first = w.try_next().await.expect("event").expect("some");
    assert!(matches!(first, WatchEvent::Added(_)), "{first:?}");
    mtpnc
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": ["f/x"]}})),
        )
        .await
        .expect("add finalizer");
    let deleted = mtpnc
        .delete(name, &DeleteParams::default())
        .await
        .expect("delete");
    let obj = deleted.left().expect("still there");
    assert!(obj.metadata.deletion_timestamp.is_some());
    assert!(mtpnc.get(name).await.is_ok(), "held by its finalizer");
    mtpnc
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": null}})),
        )
        .await
        .expect("clear");
    assert_eq!(api_code(mtpnc.get(name).await).0, 404);
    let mut kinds = Vec::new();
    while let Some(Ok(ev)) = w.next().await {
        kinds.push(match ev {
            WatchEvent::Added(_) => "ADDED",
            WatchEvent::Modified(_) => "MODIFIED",
            WatchEvent::Deleted(_) => "DELETED",
            _ => "OTHER",
        });
        if kinds.last() == Some(&"DELETED") {
            break;
        }
    }
    assert_eq!(kinds, vec!["MODIFIED", "MODIFIED", "DELETED"]);

    let deps: Api<Deployment> = Api::namespaced(c.clone(), "mgmt-agent");
    let pods: Api<Pod> = Api::namespaced(c.clone(), "mgmt-agent");
    let s = deps
        .patch_scale(
            "mgmt-agent",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .expect("scale");
    assert_eq!(s.spec.and_then(|s| s.replicas), Some(3));
    assert_eq!(
        pods.list(&ListParams::default().labels("app=mgmt-agent"))
            .await
            .expect("pods")
            .items
            .len(),
        3
    );
    let s = deps.get_scale("mgmt-agent").await.expect("get scale");
    assert_eq!(s.status.map(|s| s.replicas), Some(3));
    deps.patch_scale(
        "mgmt-agent",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 0}})),
    )
    .await
    .expect("scale 0");
    assert!(pods
        .list(&ListParams::default())
        .await
        .expect("pods")
        .items
        .is_empty());
    let (code, _) = api_code(
        deps.patch_scale(
            "mgmt-agent",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": -1}})),
        )
        .await,
    );
    assert_eq!(code, 422);

    let cns: Api<Pod> = Api::namespaced(c.clone(), "kube-system");
    let log = cns
        .logs(
            "azure-cns-9hq4m",
            &LogParams {
                tail_lines: Some(2),
                ..Default::default()
            },
        )
        .await
        .expect("logs");
    assert_eq!(log.lines().count(), 2);
    let prev = cns
        .logs(
            "azure-cns-9hq4m",
            &LogParams {
                previous: true,
                ..Default::default()
            },
        )
        .await
        .expect("previous");
    assert!(prev.contains("nmagent unavailable"));
    assert_eq!(
        api_code(
            cns.logs(
                "azure-cns-7xk2p",
                &LogParams {
                    previous: true,
                    ..Default::default()
                }
            )
            .await
        )
        .0,
        400
    );
}
