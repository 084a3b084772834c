//! Unit tests of the curl/wget/az/git and Unix utility rules.

use super::tests_kube::check;
use crate::tsg::SafetyClass::{Interactive, LongRunning, Mutating, ReadOnly, Unknown};

#[test]
fn curl_methods_and_bodies() {
    check(&[
        ("curl -s http://localhost:8001/api/x | jq", ReadOnly),
        ("curl -X DELETE http://x/y", Mutating),
        ("curl -XPOST http://x", Mutating),
        ("curl -sSX PUT http://x", Mutating),
        ("curl --request PATCH http://x", Mutating),
        ("curl --request=delete http://x", Mutating),
        ("curl -X GET http://x", ReadOnly),
        ("curl -d '{}' http://x", Mutating),
        ("curl --data-binary @f http://x", Mutating),
        ("curl -F file=@x http://x", Mutating),
        ("curl -T file http://x", Mutating),
        ("curl --json '{}' http://x", Mutating),
        ("curl -sG http://x --data-urlencode 'search=a'", ReadOnly),
        ("curl -I http://x", ReadOnly),
        ("curl -H 'X-Method: POST' http://x", ReadOnly),
        ("curl -o out.json http://x", Mutating),
        ("curl -s -o /dev/null -w '%{http_code}' http://x", ReadOnly),
        ("curl -O http://x/file", Mutating),
        ("curl -X BREW http://x", Unknown),
    ]);
}

#[test]
fn wget_modes() {
    check(&[
        ("wget -qO- http://x", ReadOnly),
        ("wget -O - http://x", ReadOnly),
        ("wget --spider http://x", ReadOnly),
        ("wget http://x/file.tgz", Mutating),
        ("wget --method=DELETE -qO- http://x", Mutating),
        ("wget --post-data 'a=1' -qO- http://x", Mutating),
    ]);
}

#[test]
fn azure_cli_verbs() {
    check(&[
        ("az account show --query tenantId -o tsv", ReadOnly),
        ("az account list --output table", ReadOnly),
        (
            "az account get-access-token --resource x --query accessToken -o tsv",
            ReadOnly,
        ),
        ("az aks show -g rg -n c --query kubernetesVersion", ReadOnly),
        (
            "az network vnet subnet show -g rg --vnet-name v -n s",
            ReadOnly,
        ),
        ("az keyvault certificate list --vault-name kv", ReadOnly),
        ("az vmss list-instances -g rg -n v", ReadOnly),
        (
            "az vmss delete-instances --resource-group rg --name v --instance-ids 3",
            Mutating,
        ),
        ("az group delete -n rg --yes", Mutating),
        (
            "az aks nodepool scale -g rg --cluster-name c -n np --node-count 3",
            Mutating,
        ),
        ("az vm restart -g rg -n vm", Mutating),
        ("az vm deallocate -g rg -n vm", Mutating),
        ("az account set --subscription x", Mutating),
        (
            "az keyvault certificate import --vault-name v --name n --file f",
            Mutating,
        ),
        (
            "az aks command invoke -g rg -n c --command 'kubectl get pods'",
            Mutating,
        ),
        ("az aks get-credentials -g rg -n c", Mutating),
        (
            "az keyvault secret download --vault-name v --name n --file f",
            Mutating,
        ),
        ("az rest --url https://management.azure.com/x", ReadOnly),
        ("az rest --method delete --url https://x", Mutating),
        ("az rest --url https://x --body '{}'", Mutating),
        ("az login --tenant t", Interactive),
        ("az deployment group wait -g rg -n d --created", LongRunning),
        ("az frobnicate thing", Unknown),
    ]);
}

#[test]
fn git_subcommands() {
    check(&[
        ("git status", ReadOnly),
        (
            "git diff dev-infrastructure/data/encryptedsecrets.yaml",
            ReadOnly,
        ),
        ("git log --oneline -5", ReadOnly),
        ("git branch -a", ReadOnly),
        ("git stash list", ReadOnly),
        ("git stash", Mutating),
        ("git branch new-one", Mutating),
        ("git clone https://github.com/x/y", Mutating),
        ("git checkout abc123", Mutating),
        ("git commit -m x", Mutating),
        ("git push origin main", Mutating),
        ("git frob", Unknown),
    ]);
}

#[test]
fn unix_utilities() {
    check(&[
        (
            "grep -E 'a|b' f | sort | uniq -c | head -5 | wc -l",
            ReadOnly,
        ),
        (
            "awk '{print $1}' f | cut -d/ -f3 | tr a b | column -t",
            ReadOnly,
        ),
        ("sed 's/a/b/' f", ReadOnly),
        ("sed -i 's/a/b/' f", Mutating),
        ("sed -i.bak -e 's/a/b/' f", Mutating),
        ("sed --in-place 's/a/b/' f", Mutating),
        ("echo hi | base64 -d", ReadOnly),
        ("tail -n 20 f", ReadOnly),
        ("tail -f /var/log/x", LongRunning),
        ("tee out.log", Mutating),
        ("tee /dev/stderr", ReadOnly),
        (
            "make -C test/ int-e2e 2>&1 | tee /tmp/int-e2e.log",
            Mutating,
        ),
        ("rm -rf ~/.cache/x", Mutating),
        ("mv a b", Mutating),
        ("cp a b", Mutating),
        ("mkdir -p /tmp/x", Mutating),
        ("kill 1234", Mutating),
        ("find . -name '*.log'", ReadOnly),
        ("find . -name '*.log' -delete", Mutating),
        ("tar -tzf x.tgz", ReadOnly),
        ("tar -xzf x.tgz", Mutating),
        ("yq '.a' f.yaml", ReadOnly),
        ("yq -i '.a = 1' f.yaml", Mutating),
        ("sort -o out in", Mutating),
        ("ping -c 3 host", ReadOnly),
        ("ping host", LongRunning),
        ("python3 -m json.tool f.json", ReadOnly),
        ("python3 fix.py", Unknown),
        ("set -euo pipefail; export X=1; cd /tmp; echo ok", ReadOnly),
        ("test -f x && [ -d y ] && [[ -n $z ]]", ReadOnly),
        ("sleep 5; date -u", ReadOnly),
    ]);
}

#[test]
fn interactive_tools() {
    check(&[
        ("ssh bastion", Interactive),
        ("ssh -i key user@bastion", Interactive),
        ("ssh bastion 'rm -rf /tmp/x'", Unknown),
        ("vi f", Interactive),
        ("vim f", Interactive),
        ("kubectl get pods | less", Interactive),
        ("top", Interactive),
        ("bash", Interactive),
        ("echo | openssl s_client -connect x:443", ReadOnly),
        ("openssl x509 -in c.pem -noout -text", ReadOnly),
        ("psql -c 'select 1'", ReadOnly),
        ("psql -h db -c 'drop table t'", Mutating),
        ("psql -h db", Interactive),
        ("psql -f fix.sql", Unknown),
    ]);
}

#[test]
fn diagnostic_tools_of_the_corpus() {
    check(&[
        (
            "hcpctl must-gather query --kusto k --region eastus",
            ReadOnly,
        ),
        (
            "hcpctl mc dump-crs mc-1 --hosted-cluster-namespace ns -o /tmp/x",
            ReadOnly,
        ),
        ("hcpctl must-gather clean --path-to-clean ./x", Unknown),
        ("promtool check rules r.yaml", ReadOnly),
        ("promtool tsdb create-blocks-from openmetrics x y", Unknown),
        ("docker ps -a", ReadOnly),
        ("docker run --rm img", Mutating),
        ("systemctl status kubelet", ReadOnly),
        ("systemctl restart kubelet", Mutating),
        ("journalctl -u kubelet -f", LongRunning),
    ]);
}
