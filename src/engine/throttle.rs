//! How many tests may run at once right now: `-j`, or fewer while the machine's CPUs are
//! saturated.
//!
//! Speculation keeps `-j` tests running, most of them on candidates the serial run may never
//! reach. When `-j` is above the number of CPUs and the tests compute, those extra tests take
//! CPU time from the one the run waits for, and every test gets slower, so that a wider run can
//! end later than a narrower one. So with local tests and `-j` above the CPU count, the loop asks [`Throttle::room`]
//! before starting a test: it samples the whole machine's CPU time (`/proc/stat`) a few times a
//! second, gives up an eighth of the room while the CPUs are nearly all busy and takes one slot
//! back while they are not, never going below the CPU count. Tests that wait (on a sleep, the
//! network, a cluster) leave the CPUs idle and keep every slot. The room only decides how many
//! run, never what is committed: results stay identical for every `-j`.

use std::time::{Duration, Instant};

/// Sample the CPUs no more often than this (their counters tick every 10 ms).
const PERIOD: Duration = Duration::from_millis(200);
/// Busy share of all CPUs at or above which the room shrinks.
const SATURATED: f64 = 0.92;
/// Busy share below which it grows again.
const SPARE: f64 = 0.80;

/// Busy and total CPU time of the whole machine, in clock ticks.
#[derive(Clone, Copy, Debug, PartialEq)]
struct CpuTimes {
    busy: u64,
    total: u64,
}

pub struct Throttle {
    floor: usize,
    width: usize,
    room: usize,
    last: Option<(Instant, CpuTimes)>,
}

impl Throttle {
    /// A throttle for `width` local tests, or `None` when they cannot oversubscribe the CPUs
    /// (`width` at most their number) or the CPUs cannot be read.
    pub fn for_local(width: usize) -> Option<Throttle> {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        (width > cpus && cpu_times().is_some()).then_some(Throttle {
            floor: cpus,
            width,
            room: width,
            last: None,
        })
    }

    /// How many tests may run now.
    pub fn room(&mut self) -> usize {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|(at, _)| now.duration_since(at) < PERIOD)
        {
            return self.room;
        }
        let Some(times) = cpu_times() else {
            return self.room;
        };
        if let Some((_, before)) = self.last {
            let total = times.total.saturating_sub(before.total);
            if total > 0 {
                let busy = times.busy.saturating_sub(before.busy) as f64 / total as f64;
                self.room = adjust(self.room, busy, self.floor, self.width);
                crate::report::trace::event('R', format_args!("{} {busy:.2}", self.room));
            }
        }
        self.last = Some((now, times));
        self.room
    }
}

/// The next room after a sample with this busy share of all CPUs.
fn adjust(room: usize, busy: f64, floor: usize, width: usize) -> usize {
    let next = if busy >= SATURATED {
        room - (room / 8).max(1).min(room)
    } else if busy < SPARE {
        room + 1
    } else {
        room
    };
    next.clamp(floor.min(width), width)
}

/// The machine's CPU time so far, from the first line of `/proc/stat`.
fn cpu_times() -> Option<CpuTimes> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    parse_cpu_line(stat.lines().next()?)
}

/// `cpu  user nice system idle iowait irq softirq steal ...`: idle and iowait are not busy.
fn parse_cpu_line(line: &str) -> Option<CpuTimes> {
    let mut fields = line.split_whitespace();
    (fields.next()? == "cpu").then_some(())?;
    let ticks: Vec<u64> = fields
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    (ticks.len() >= 5).then_some(())?;
    let total: u64 = ticks.iter().sum();
    Some(CpuTimes {
        busy: total - ticks[3] - ticks[4],
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_room_shrinks_while_the_cpus_are_saturated_and_grows_back_one_by_one() {
        // 32 tests on 2 CPUs: saturated samples take an eighth each time, down to the floor
        let mut room = 32;
        let mut seen = vec![room];
        while room > 2 {
            room = adjust(room, 0.97, 2, 32);
            seen.push(room);
        }
        assert_eq!(seen[..6], [32, 28, 25, 22, 20, 18]);
        assert_eq!(adjust(2, 1.0, 2, 32), 2, "never below the CPU count");
        // in between: unchanged; spare CPU: one more, up to -j
        assert_eq!(adjust(20, 0.85, 2, 32), 20);
        assert_eq!(adjust(20, 0.5, 2, 32), 21);
        assert_eq!(adjust(32, 0.1, 2, 32), 32);
        // a floor above -j is -j
        assert_eq!(adjust(3, 0.99, 8, 3), 3);
    }

    #[test]
    fn cpu_line_busy_excludes_idle_and_iowait() {
        let t = parse_cpu_line("cpu  100 5 50 800 40 3 2 0 0 0").unwrap();
        assert_eq!(
            t,
            CpuTimes {
                busy: 160,
                total: 1000
            }
        );
        assert_eq!(parse_cpu_line("cpu0 1 2 3 4 5"), None);
        assert_eq!(parse_cpu_line("cpu  1 x 3 4 5"), None);
    }

    #[test]
    fn no_throttle_when_the_tests_cannot_oversubscribe_the_cpus() {
        assert!(Throttle::for_local(1).is_none());
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert!(Throttle::for_local(cpus).is_none());
        if cpu_times().is_some() {
            let mut t = Throttle::for_local(cpus + 8).expect("a throttle above the CPU count");
            let room = t.room();
            assert!((cpus..=cpus + 8).contains(&room), "{room}");
        }
    }
}
