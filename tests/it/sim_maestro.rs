//! Many simulated clusters behind one server (independent state, one kubeconfig context
//! each) and the simulated Maestro REST API: paging, `search`, soft delete with the
//! root-level `deleted_at`, and the soft delete reaching the consumer's ManifestWork.

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use serde_json::{json, Value};

use super::sim_support::{client, start, STUCK_ID};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_clusters_one_server_and_the_maestro_api() {
    let sim = start("maestro", Some(5)).await;
    assert_eq!(
        sim.handle.clusters,
        vec![
            "mc-eastus-1",
            "mc-westus3-1",
            "mc-westeurope-1",
            "mc-uksouth-1",
            "mc-eastus2-1"
        ]
    );
    let kc = std::fs::read_to_string(&sim.kubeconfig).expect("kubeconfig");
    assert!(
        kc.contains(&format!("{}/clusters/mc-uksouth-1", sim.handle.url)),
        "{kc}"
    );
    let a: Api<Deployment> = Api::namespaced(
        client(&sim.kubeconfig, Some("mc-westus3-1")).await,
        "maestro",
    );
    let b: Api<Deployment> = Api::namespaced(
        client(&sim.kubeconfig, Some("mc-uksouth-1")).await,
        "maestro",
    );
    a.patch_scale(
        "maestro-agent",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 0}})),
    )
    .await
    .expect("scale");
    assert_eq!(
        b.get("maestro-agent").await.expect("get").spec.replicas,
        Some(1),
        "clusters are independent"
    );

    let http = reqwest::Client::new();
    let base = format!(
        "{}/api/maestro/v1/resource-bundles",
        sim.handle.maestro_url()
    );
    let get = |url: String| {
        let http = http.clone();
        async move {
            http.get(url)
                .send()
                .await
                .expect("send")
                .json::<Value>()
                .await
                .expect("json")
        }
    };
    let page = get(format!("{base}?size=2&page=1")).await;
    assert_eq!(
        (page["total"].as_u64(), page["size"].as_u64()),
        (Some(3), Some(2))
    );
    let live = get(format!(
        "{base}?search=name%20%3D%20%272lq3healthy0maestro0cluster01-00-namespaces%27"
    ))
    .await;
    assert_eq!(live["items"].as_array().map(Vec::len), Some(1));
    let id = live["items"][0]["id"].as_str().expect("id").to_string();
    assert!(live["items"][0]["deleted_at"].is_null());
    let r = http
        .delete(format!("{base}/{id}"))
        .send()
        .await
        .expect("delete");
    assert_eq!(r.status().as_u16(), 204);
    let after = get(format!("{base}/{id}")).await;
    assert!(
        after["deleted_at"].is_string(),
        "soft delete sets the root-level deleted_at: {after}"
    );
    assert!(after["metadata"].get("deleted_at").is_none());
    assert_eq!(
        get(format!("{base}?size=3000")).await["total"],
        3,
        "soft-deleted bundles stay listed"
    );
    let by_ids = get(format!("{base}?search=id%20in%20(%27{id}%27)")).await;
    assert_eq!(by_ids["total"], 1);
    let bad = http
        .get(format!("{base}?search=color%3D%27red%27"))
        .send()
        .await
        .expect("send");
    assert_eq!(bad.status().as_u16(), 400);
    let missing = http.get(format!("{base}/nope")).send().await.expect("send");
    assert_eq!(missing.status().as_u16(), 404);

    // The soft delete reached the consumer's cluster: its ManifestWork is deleting.
    let c = client(&sim.kubeconfig, Some("mc-eastus-1")).await;
    let ar = kube::discovery::ApiResource::from_gvk_with_plural(
        &kube::core::GroupVersionKind::gvk("work.open-cluster-management.io", "v1", "ManifestWork"),
        "manifestworks",
    );
    let mws: Api<DynamicObject> = Api::namespaced_with(c, "local-cluster", &ar);
    let mw = mws
        .get("2lq3healthy0maestro0cluster01-00-namespaces")
        .await
        .expect("mw");
    assert!(mw.metadata.deletion_timestamp.is_some());
    let stuck = mws
        .list(&ListParams::default().labels(&format!("api.openshift.com/id={STUCK_ID}")))
        .await
        .expect("list");
    assert_eq!(stuck.items.len(), 2);
}
