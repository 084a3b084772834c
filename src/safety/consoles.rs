//! Console input in its own language: SQL (DML and DDL change data; `SELECT`, `SHOW`,
//! `EXPLAIN` and meta-commands read), redis (write commands change data), Ruby typed into a
//! rails console (ActiveRecord writes such as `.save`, `.update`, `.destroy` change data),
//! and python and mongo shells.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{long_running, mutating, read_only, unknown, worse, Class};
use crate::tsg::Console;

/// The class of `code` typed into `console`.
pub(super) fn classify(console: Console, code: &str) -> Class {
    match console {
        Console::Sql => sql(code),
        Console::Redis => redis_lines(code),
        Console::Ruby => ruby(code),
        Console::Python => unknown("a python shell runs a program whose effects cannot be checked"),
        Console::Mongo => mongo(code),
    }
}

const SQL_READS: &[&str] = &[
    "select", "show", "explain", "describe", "desc", "values", "table", "with", "begin", "commit",
    "rollback", "start", "end", "use", "help", "\\g", "\\x", "\\q",
];

const SQL_WRITES: &[&str] = &[
    "insert",
    "update",
    "delete",
    "drop",
    "create",
    "alter",
    "truncate",
    "grant",
    "revoke",
    "reindex",
    "vacuum",
    "analyze",
    "analyse",
    "cluster",
    "refresh",
    "copy",
    "merge",
    "upsert",
    "replace",
    "rename",
    "comment",
    "lock",
    "kill",
    "set",
    "reset",
    "discard",
    "load",
    "optimize",
    "repair",
    "flush",
    "purge",
    "install",
    "uninstall",
    "change",
    "stop",
    "call",
    "do",
    "execute",
    "prepare",
    "listen",
    "notify",
    "checkpoint",
    "security",
    "import",
];

/// Functions that change the server even inside a `SELECT`.
const SQL_WRITE_FUNCTIONS: &[&str] = &[
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_reload_conf",
    "pg_drop_replication_slot",
    "pg_create_physical_replication_slot",
    "pg_create_logical_replication_slot",
    "pg_switch_wal",
    "pg_rotate_logfile",
    "pg_advisory_lock",
    "setval",
    "nextval",
    "lo_unlink",
    "set_config",
];

/// SQL statements (and psql/mysql meta-commands), each classed by its first keyword; a
/// `SELECT` that calls a function with effects, locks rows or writes a table changes data.
pub(super) fn sql(code: &str) -> Class {
    let mut class = read_only("SQL queries and meta-commands that only read");
    let text: String = crate::tsg::lines(code)
        .filter(|l| !l.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n");
    for stmt in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        class = worse(class, statement(stmt));
    }
    class
}

fn statement(stmt: &str) -> Class {
    let lower = stmt.to_ascii_lowercase();
    let first: String = lower
        .trim_start_matches('(')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '\\')
        .collect();
    if let Some(meta) = first.strip_prefix('\\') {
        return match meta {
            "i" | "ir" | "include" | "!" | "o" | "w" | "copy" => unknown(format!(
                "the meta-command `\\{meta}` runs a file or a shell command, or writes one"
            )),
            _ => read_only(format!("the meta-command `\\{meta}` only shows")),
        };
    }
    let words = || lower.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    if let Some(f) = words().find(|w| SQL_WRITE_FUNCTIONS.contains(w)) {
        return mutating(format!("`{f}()` changes the server"));
    }
    if SQL_WRITES.contains(&first.as_str()) {
        return mutating(format!("`{}` changes the database", first.to_uppercase()));
    }
    if SQL_READS.contains(&first.as_str()) {
        // `WITH … DELETE`, `EXPLAIN ANALYZE UPDATE`, `SELECT … INTO`, `… FOR UPDATE`.
        let all: Vec<&str> = words().filter(|w| !w.is_empty()).collect();
        let writes = all.iter().skip(1).find(|w| {
            matches!(
                **w,
                "insert" | "update" | "delete" | "into" | "drop" | "truncate"
            )
        });
        return match writes {
            Some(w) if first != "show" => mutating(format!(
                "the `{}` statement holds `{}`, which changes data",
                first.to_uppercase(),
                w.to_uppercase()
            )),
            _ => read_only(format!("`{}` only reads", first.to_uppercase())),
        };
    }
    unknown(format!(
        "`{first}` is not an SQL statement tsgnav knows, so it may change data"
    ))
}

const REDIS_READS: &[&str] = &[
    "get",
    "mget",
    "keys",
    "scan",
    "sscan",
    "hscan",
    "zscan",
    "info",
    "ttl",
    "pttl",
    "type",
    "exists",
    "strlen",
    "hget",
    "hgetall",
    "hmget",
    "hkeys",
    "hvals",
    "hlen",
    "hexists",
    "lrange",
    "llen",
    "lindex",
    "smembers",
    "scard",
    "sismember",
    "srandmember",
    "zrange",
    "zrangebyscore",
    "zrevrange",
    "zrevrangebyscore",
    "zcard",
    "zscore",
    "zrank",
    "zcount",
    "dbsize",
    "ping",
    "echo",
    "time",
    "lastsave",
    "role",
    "xlen",
    "xrange",
    "xrevrange",
    "xinfo",
    "pfcount",
    "getrange",
    "bitcount",
    "select",
    "auth",
    "command",
    "randomkey",
    "dump",
    "object",
    "memory",
    "latency",
    "slowlog",
    "client",
    "config",
    "cluster",
    "hello",
    "quit",
];

/// Two-word commands whose second word changes the server.
const REDIS_SUB_WRITES: &[&str] = &[
    "set",
    "rewrite",
    "resetstat",
    "reset",
    "kill",
    "pause",
    "no-evict",
    "setname",
    "purge",
    "failover",
    "forget",
    "meet",
    "addslots",
    "delslots",
    "replicate",
    "flushslots",
];

fn redis_lines(code: &str) -> Class {
    let mut class = read_only("redis commands that only read");
    for line in crate::tsg::lines(code)
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        class = worse(class, redis(&words));
    }
    class
}

/// One redis command (`GET k`, `CONFIG SET …`, `FLUSHALL`).
pub(super) fn redis(words: &[String]) -> Class {
    let Some(cmd) = words.first().map(|w| w.to_ascii_lowercase()) else {
        return read_only("an empty redis command does nothing");
    };
    let sub = words
        .get(1)
        .map(|w| w.to_ascii_lowercase())
        .unwrap_or_default();
    match cmd.as_str() {
        "monitor" | "subscribe" | "psubscribe" => long_running(format!(
            "redis `{}` keeps streaming until stopped",
            cmd.to_uppercase()
        )),
        _ if REDIS_READS.contains(&cmd.as_str()) && !REDIS_SUB_WRITES.contains(&sub.as_str()) => {
            read_only(format!("redis `{}` only reads", cmd.to_uppercase()))
        }
        _ => mutating(format!(
            "redis `{}` changes data or the server",
            cmd.to_uppercase()
        )),
    }
}

/// ActiveRecord and Rails calls that write.
const RUBY_WRITES: &[&str] = &[
    "save",
    "update",
    "update_all",
    "update_attribute",
    "update_attributes",
    "update_column",
    "update_columns",
    "destroy",
    "destroy_all",
    "delete",
    "delete_all",
    "create",
    "find_or_create_by",
    "insert",
    "insert_all",
    "upsert",
    "upsert_all",
    "increment",
    "decrement",
    "toggle",
    "touch",
    "enable",
    "disable",
    "remove",
    "add",
    "perform",
    "perform_async",
    "perform_now",
    "perform_later",
    "execute",
    "drop",
    "archive",
    "unarchive",
    "block",
    "unblock",
    "ban",
    "lock",
    "unlock",
    "cancel",
    "retry",
    "run",
    "set",
    "reset",
    "clear",
    "expire",
    "flush",
    "push",
    "pop",
    "write",
];

/// Ruby that reaches outside the console's objects.
const RUBY_ESCAPES: &[&str] = &[
    "system",
    "exec",
    "spawn",
    "`",
    "%x",
    "File.",
    "IO.",
    "eval",
    "send",
    "instance_eval",
    "Kernel",
    "Open3",
    "FileUtils",
];

/// Ruby typed into a rails console: a call to a write (`.save!`, `.update`, `Feature.enable`)
/// or any bang method changes data; a way out of the console (`system`, backticks) is
/// unknown; calls that read (`find`, `where`, attributes) only read.
pub(super) fn ruby(code: &str) -> Class {
    if let Some(e) = RUBY_ESCAPES.iter().find(|e| code.contains(*e)) {
        return unknown(format!(
            "`{e}` reaches outside the console, so tsgnav cannot tell what it does"
        ));
    }
    for (i, _) in code.match_indices('.') {
        let name: String = code[i + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '!')
            .collect();
        let bare = name.trim_end_matches('!');
        if RUBY_WRITES.contains(&bare) || name.ends_with('!') {
            return mutating(format!("`.{name}` writes to the database"));
        }
    }
    read_only("the console calls only read records")
}

/// mongo shell calls: `find`, `count`, `aggregate` read; `insert…`, `update…`, `delete…`,
/// `drop…`, `remove` write.
fn mongo(code: &str) -> Class {
    let lower = code.to_ascii_lowercase();
    let writes = [
        "insert",
        "update",
        "delete",
        "remove",
        "drop",
        "createindex",
        "renamecollection",
        "replaceone",
        "findoneandupdate",
        "findoneanddelete",
        "$out",
        "$merge",
    ];
    match writes.iter().find(|w| lower.contains(*w)) {
        Some(w) => mutating(format!("mongo `{w}` changes data")),
        None if lower.contains("find") || lower.contains("count") || lower.starts_with("show") => {
            read_only("mongo queries that only read")
        }
        None => unknown("a mongo shell call tsgnav does not know"),
    }
}
