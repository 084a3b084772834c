//! Unit tests of the hidden-mutation forms: flags that shift the verb, `--dry-run` read as
//! kubectl reads it, builtins that change later commands, arithmetic, write forms of
//! readers, and setters.

use super::tests_kube::check;
use crate::tsg::SafetyClass::{LongRunning, Mutating, ReadOnly, Unknown};

#[test]
fn dry_run_is_read_like_kubectl() {
    check(&[
        (
            "kubectl delete pod x --dry-run=server --dry-run=none",
            Mutating,
        ),
        (
            "kubectl delete pod x --dry-run=none --dry-run=server",
            ReadOnly,
        ),
        ("kubectl delete pod x --dry-run=0", Mutating),
        ("kubectl delete pod x --dry-run=False", Mutating),
        ("kubectl delete pod x --dry-run=f", Mutating),
        ("kubectl delete pod x --dry-run=1", ReadOnly),
        ("kubectl delete pod x --dry-run=TRUE", ReadOnly),
        ("kubectl delete pod x --dry-run", ReadOnly),
        ("kubectl delete pod x --dry-run=client", ReadOnly),
        ("kubectl delete pod x --dry-run=maybe", Unknown),
        (
            "kubectl rollout restart deploy/x --dry-run=server --dry-run=false",
            Mutating,
        ),
        ("oc adm drain n1 --dry-run=none", Mutating),
        ("helm uninstall foo --dry-run=false", Mutating),
        ("helm upgrade foo ./c --dry-run", ReadOnly),
    ]);
}

#[test]
fn unknown_global_flags_make_the_verb_unknown() {
    check(&[
        ("kubectl --cache-dir get delete pod x", Mutating),
        ("kubectl --tls-server-name get delete pod x", Mutating),
        ("kubectl --some-new-flag get delete pod x", Unknown),
        ("kubectl --some-new-flag=v get pods", ReadOnly),
        ("kubectl -Z get pods", Unknown),
        ("kubectl rollout --foo status restart deploy/x", Unknown),
        ("kubectl --insecure-skip-tls-verify get pods", ReadOnly),
        ("helm --kube-token get uninstall foo", Mutating),
        ("helm --kube-weird get uninstall foo", Unknown),
        ("helm --debug list", ReadOnly),
        ("helm template x ./c --post-renderer ./hook.sh", Unknown),
        (
            "kubectl cluster-info dump --output-directory=/tmp/d",
            Mutating,
        ),
        ("kubectl cluster-info dump", Unknown),
        ("kubectl cluster-info", ReadOnly),
        ("kubectl kustomize --enable-alpha-plugins .", Unknown),
    ]);
}

#[test]
fn builtins_that_change_later_commands() {
    check(&[
        ("trap 'kubectl delete pod x' EXIT", Unknown),
        ("trap - EXIT", ReadOnly),
        ("trap -p", ReadOnly),
        (
            "shopt -s expand_aliases; alias ls='kubectl delete pod x'; ls",
            Unknown,
        ),
        ("alias", ReadOnly),
        ("hash -p /usr/bin/kubectl ls; ls delete pod x", Unknown),
        ("hash -r", ReadOnly),
        ("echo ZGVsZXRl | base64 -d | xargs kubectl", Unknown),
        ("echo pod-a | xargs kubectl get pod", Unknown),
        (
            "kubectl get pods -o name | xargs -I{} kubectl get {}",
            ReadOnly,
        ),
        ("echo a b | xargs echo", ReadOnly),
        ("env -S 'kubectl delete pod x'", Unknown),
        ("env -iS'kubectl delete pod x'", Unknown),
        ("command -v kubectl", ReadOnly),
        ("command kubectl delete pod x", Mutating),
        ("builtin alias ls='rm -rf /'", Unknown),
        ("((kubectl delete pod x) )", Mutating),
        ("(( 1 + 2 ))", ReadOnly),
        ("(( n = v + 1 ))", Unknown),
        ("v='a[$(touch f)]'; echo $((v))", Unknown),
        ("echo $((1+2))", ReadOnly),
        ("let x=v", Unknown),
        ("[[ $v -eq 1 ]] && echo y", Unknown),
        ("[[ -n $v ]] && echo y", ReadOnly),
        ("declare -i n=$v", Unknown),
        (
            "KUBECTL_EXTERNAL_DIFF='rm -rf' kubectl diff -f x.yaml",
            Unknown,
        ),
        (
            "export KUBECTL_EXTERNAL_DIFF=./x; kubectl diff -f y",
            Unknown,
        ),
        ("env PATH=/tmp/x kubectl get pods", Unknown),
        ("PATH=/tmp/evil:$PATH", Unknown),
        ("/usr/bin/time -o report kubectl get pods", Mutating),
        ("time -o report kubectl get pods", Unknown),
    ]);
}

#[test]
fn curl_config_and_method_override() {
    check(&[
        ("curl -K <(echo 'request = \"DELETE\"') http://x", Unknown),
        ("curl --config cfg http://x", Unknown),
        (
            "curl -H 'X-HTTP-Method-Override: DELETE' http://x",
            Mutating,
        ),
        ("curl --header 'x-http-method: PUT' http://x", Mutating),
        ("curl -H 'X-Method-Override: GET' http://x", ReadOnly),
        ("curl --trace-ascii dump.txt http://x", Mutating),
        ("curl --stderr err.txt http://x", Mutating),
        ("curl --libcurl code.c http://x", Mutating),
    ]);
}

#[test]
fn write_forms_of_readers() {
    check(&[
        ("awk 'BEGIN{system(\"kubectl delete pod x\")}'", Unknown),
        ("awk '{print > \"f\"}' in.txt", Mutating),
        ("awk '{print $1 | \"sh\"}' in.txt", Unknown),
        ("awk '\"date\" | getline d' /dev/null", Unknown),
        ("awk -f prog.awk in.txt", Unknown),
        ("awk '$3 > 5 {print $1}' in.txt", ReadOnly),
        ("awk -F: '/a|b/ {print $1}' /etc/passwd", ReadOnly),
        ("sed '1e touch f' in", Unknown),
        ("sed -n 'w f' in", Mutating),
        ("sed 's/a/b/w out' in", Mutating),
        ("sed 's/a/b/e' in", Unknown),
        ("sed -n '/x/p' in", ReadOnly),
        ("sed 's|a;b|c|g; s/x/y/' in", ReadOnly),
        ("sed -e 's/a/b/' -e '$w out' in", Mutating),
        ("sed --sandbox 's/a/b/w x' in", ReadOnly),
        ("sed -f script.sed in", Unknown),
        (
            "tar --checkpoint=1 --checkpoint-action=exec='sh -c id' -tf a.tar",
            Unknown,
        ),
        ("tar -tf a.tar", ReadOnly),
        ("tar -tf a.tar --to-command='rm x'", Unknown),
        ("find . -fprint0 f", Mutating),
        ("find . -fprintf f '%p'", Mutating),
        ("find . -fls f", Mutating),
        ("find . -name x -delete", Mutating),
        ("find . -name '*.log'", ReadOnly),
        ("xxd - f", Mutating),
        ("xxd in.bin", ReadOnly),
        ("uniq in out", Mutating),
        ("sort x | uniq -c", ReadOnly),
        ("shuf -o f in", Mutating),
        ("shuf -n1 in", ReadOnly),
        ("echo x | tee f", Mutating),
        ("echo x | tee /dev/null", ReadOnly),
    ]);
}

#[test]
fn setters() {
    check(&[
        ("ip link set eth0 down", Mutating),
        ("ip l s eth0 down", Mutating),
        ("ip addr add 10.0.0.1/24 dev eth0", Mutating),
        ("ip route del default", Mutating),
        ("ip netns exec x rm -rf /", Mutating),
        ("ip -br addr show", ReadOnly),
        ("ip a", ReadOnly),
        ("ip route get 1.1.1.1", ReadOnly),
        ("ip monitor", LongRunning),
        ("date -s '2020-01-01'", Mutating),
        ("date --set=now", Mutating),
        ("date 010100002020", Mutating),
        ("date +%s", ReadOnly),
        ("date -u -d yesterday +%F", ReadOnly),
        ("hostname evil", Mutating),
        ("hostname -f", ReadOnly),
        ("ifconfig eth0 down", Mutating),
        ("ifconfig -a", ReadOnly),
        ("sysctl -w net.ipv4.ip_forward=1", Mutating),
        ("sysctl net.ipv4.ip_forward", ReadOnly),
        ("ss -K dst 10.0.0.1", Mutating),
        ("hostnamectl set-hostname x", Mutating),
        ("timedatectl", ReadOnly),
    ]);
}
