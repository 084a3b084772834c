//! Unit tests of the ops CLIs, the verb model for CLIs tsgnav does not know, PowerShell
//! cmdlets and console input (SQL, redis, Ruby).
use super::tests_kube::check;
use crate::tsg::SafetyClass::{Interactive, LongRunning, Mutating, ReadOnly, Unknown};
use crate::tsg::{Console, Lang, Probe, RunsIn, SafetyClass, ShellKind};

#[test]
fn verbs_of_unknown_clis() {
    check(&[
        ("acmectl stop --all", Mutating),
        ("acmectl cluster cordon n-1", Mutating),
        ("acmectl -c /etc/acme.yaml list", ReadOnly),
        ("acmectl status", ReadOnly),
        ("acmectl frobnicate x", Unknown),
        ("acmectl kubectl get pods", Unknown),
        ("acmectl --help", ReadOnly),
    ]);
}

#[test]
fn ops_clis() {
    check(&[
        ("gitlab-ctl status", ReadOnly),
        ("gitlab-ctl restart consul", Mutating),
        ("gitlab-ctl tail nginx", LongRunning),
        ("patronictl list", ReadOnly),
        ("patronictl switchover --force", Mutating),
        ("consul members", ReadOnly),
        ("consul maint -enable -service web", Mutating),
        ("consul maint", ReadOnly),
        ("knife node show web-1", ReadOnly),
        ("knife node delete web-1 -y", Mutating),
        ("chef-client", Mutating),
        ("iptables -L -n", ReadOnly),
        ("iptables -S", ReadOnly),
        ("iptables -F", Mutating),
        ("iptables -D INPUT 3", Mutating),
        ("ufw status", ReadOnly),
        ("ufw allow 22/tcp", Mutating),
        ("ufw disable", Mutating),
        ("gcloud compute instances list", ReadOnly),
        ("gcloud compute instances delete vm-1", Mutating),
        ("gsutil cat gs://b/o", ReadOnly),
        ("virtctl console vm-1", Interactive),
        ("virtctl stop vm-1", Mutating),
        ("service nginx status", ReadOnly),
        ("service nginx restart", Mutating),
        ("apt-get install -y jq", Mutating),
        ("yum list installed", ReadOnly),
        ("docker-machine ls", ReadOnly),
        ("nc -zv db 5432", ReadOnly),
        ("nc db 5432", Interactive),
        ("tracert -d 10.0.0.1", ReadOnly),
        ("ipconfig /flushdns", Mutating),
    ]);
}

#[test]
fn powershell_cmdlets() {
    check(&[
        ("Get-AzVM -ResourceGroupName rg", ReadOnly),
        ("Test-NetConnection -ComputerName x -Port 443", ReadOnly),
        ("Remove-AzResourceLock -LockName l -Force", Mutating),
        ("Restart-Service kubelet", Mutating),
        ("Connect-AzAccount", Interactive),
        ("Frob-Thing", Unknown),
        ("Out-File x.txt", Mutating),
    ]);
}

#[test]
fn console_clients() {
    check(&[
        ("redis-cli -h cache INFO memory", ReadOnly),
        ("redis-cli -h cache FLUSHALL", Mutating),
        ("redis-cli -h cache", Interactive),
        ("mysql -e 'UPDATE t SET a = 1'", Mutating),
        ("gitlab-rails console", Interactive),
        ("gitlab-rails runner 'User.find(1).destroy'", Mutating),
        ("python3", Interactive),
    ]);
}

fn in_console(console: Console, code: &str) -> SafetyClass {
    let mut p = Probe::from_code(Lang::Shell, code);
    p.runs_in = Some(RunsIn {
        kind: ShellKind::Host,
        via: "a console".into(),
        target: "db".into(),
        console: Some(console),
    });
    super::classify_probe(&p)
}

#[test]
fn console_input_is_read_in_its_language() {
    for (console, code, want) in [
        (Console::Sql, "SELECT * FROM t WHERE a = 'b';", ReadOnly),
        (Console::Sql, "\\dt+", ReadOnly),
        (Console::Sql, "EXPLAIN SELECT 1;", ReadOnly),
        (
            Console::Sql,
            "WITH x AS (DELETE FROM t RETURNING *) SELECT 1;",
            Mutating,
        ),
        (Console::Sql, "SELECT pg_terminate_backend(42);", Mutating),
        (Console::Sql, "SELECT 1;\nDROP TABLE t;", Mutating),
        (Console::Sql, "VACUUM ANALYZE t;", Mutating),
        (Console::Sql, "\\i fix.sql", Unknown),
        (Console::Sql, "FROBNICATE t;", Unknown),
        (Console::Redis, "GET k\nTTL k", ReadOnly),
        (Console::Redis, "CONFIG SET maxmemory 1gb", Mutating),
        (Console::Redis, "EXPIRE k 10", Mutating),
        (Console::Redis, "MONITOR", LongRunning),
        (Console::Ruby, "Project.find(1).archived?", ReadOnly),
        (Console::Ruby, "User.where(admin: true).count", ReadOnly),
        (Console::Ruby, "u = User.find(1)\nu.destroy", Mutating),
        (Console::Ruby, "Ci::Build.find(9).cancel!", Mutating),
        (Console::Ruby, "`rm -rf /`", Unknown),
        (Console::Python, "print(1)", Unknown),
        (Console::Mongo, "db.jobs.find({state: 'x'})", ReadOnly),
        (Console::Mongo, "db.jobs.deleteMany({})", Mutating),
    ] {
        assert_eq!(in_console(console, code), want, "{console:?}: {code}");
    }
}
