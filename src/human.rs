//! PURE formatting for people, shared by every layer: kubectl's durations (`5m30s`, `3d4h`),
//! so the simulator's tables, the native kubectl printer and the navigator's alert ages agree.
//!
//! A leaf: imports nothing of the crate, and no IO.

pub mod visible;

/// kubectl's `duration.HumanDuration`: `45s`, `5m30s`, `12m`, `3h20m`, `20h`, `3d4h`,
/// `12d`, `2y45d`, `9y`.
pub fn duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return match seconds % 60 {
            0 => format!("{minutes}m"),
            s => format!("{minutes}m{s}s"),
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        return match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return match hours % 24 {
            0 => format!("{}d", hours / 24),
            h => format!("{}d{h}h", hours / 24),
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return match (hours / 24) % 365 {
            0 => format!("{}y", hours / 24 / 365),
            d => format!("{}y{d}d", hours / 24 / 365),
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// The age of something that started at `since` (Unix seconds) at `now`, as kubectl prints
/// ages; `?` when the start is unknown (zero or negative).
pub fn age_since(since: i64, now: i64) -> String {
    if since <= 0 {
        return "?".into();
    }
    duration((now - since).max(0))
}

/// A size for people, in powers of 1000 as `ls -h --si` prints them: `812 bytes`, `64.0 kB`,
/// `50.0 MB`, `1.2 GB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["kB", "MB", "GB", "TB"];
    if n < 1000 {
        return format!("{n} bytes");
    }
    let mut v = n as f64 / 1000.0;
    let mut unit = 0;
    while v >= 999.95 && unit + 1 < UNITS.len() {
        v /= 1000.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_follow_kubectl_human_duration() {
        let cases = [
            (-5, "<invalid>"),
            (-1, "0s"),
            (45, "45s"),
            (119, "119s"),
            (120, "2m"),
            (330, "5m30s"),
            (600, "10m"),
            (179 * 60 + 59, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 20 * 60, "3h20m"),
            (20 * 3600, "20h"),
            (48 * 3600, "2d"),
            (76 * 3600, "3d4h"),
            (12 * 86400, "12d"),
            (2 * 365 * 86400 + 45 * 86400, "2y45d"),
            (9 * 365 * 86400, "9y"),
        ];
        for (secs, want) in cases {
            assert_eq!(duration(secs), want, "{secs}s");
        }
    }

    #[test]
    fn unknown_starts_and_clock_skew() {
        assert_eq!(age_since(0, 100), "?");
        assert_eq!(age_since(200, 100), "0s");
        assert_eq!(age_since(100, 100 + 3 * 3600 + 20 * 60), "3h20m");
    }

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(bytes(0), "0 bytes");
        assert_eq!(bytes(999), "999 bytes");
        assert_eq!(bytes(1000), "1.0 kB");
        assert_eq!(bytes(65_536), "65.5 kB");
        assert_eq!(bytes(999_960), "1.0 MB");
        assert_eq!(bytes(50_000_000), "50.0 MB");
        assert_eq!(bytes(1_234_000_000), "1.2 GB");
    }
}
