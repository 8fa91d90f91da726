//! A least-recently-used cache of kernel rows, bounded in bytes (libsvm's kernel cache, for one
//! row at a time): coordinate descent on a kernel that is not stored asks for row `i` of K each
//! time it changes `c_i`, and keeps the most recently used rows so a coordinate updated again
//! (the free support vectors, over and over) costs no kernel evaluations.

use nalgebra::DVector;

const NONE: u32 = u32::MAX;

/// Rows of length n, at most `capacity` of them, evicted least recently used first.
#[derive(Debug, Clone)]
pub struct RowCache {
    n: usize,
    capacity: usize,
    /// Row index → slot, or `NONE`.
    slot_of: Vec<u32>,
    /// Slot → row index.
    owner: Vec<usize>,
    rows: Vec<DVector<f64>>,
    /// Doubly linked recency list over slots: `head` most recent, `tail` least.
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
    /// The row handed out when the capacity is 0.
    scratch: DVector<f64>,
    hits: u64,
    misses: u64,
}

impl RowCache {
    /// A cache of rows of length `n` within `bytes` (⌊bytes / 8n⌋ rows; 0 keeps none and
    /// computes every request).
    pub fn new(n: usize, bytes: f64) -> Self {
        let per_row = 8.0 * n.max(1) as f64;
        let capacity = if bytes.is_finite() && bytes > 0.0 {
            ((bytes / per_row).floor() as usize).min(n)
        } else {
            0
        };
        Self {
            n,
            capacity,
            slot_of: vec![NONE; n],
            owner: Vec::new(),
            rows: Vec::new(),
            prev: Vec::new(),
            next: Vec::new(),
            head: NONE,
            tail: NONE,
            scratch: DVector::zeros(if capacity == 0 { n } else { 0 }),
            hits: 0,
            misses: 0,
        }
    }

    /// How many rows it may hold.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Requests served from the cache, and requests that computed the row.
    pub fn hits_misses(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    fn unlink(&mut self, s: u32) {
        let (p, q) = (self.prev[s as usize], self.next[s as usize]);
        if p != NONE {
            self.next[p as usize] = q;
        } else {
            self.head = q;
        }
        if q != NONE {
            self.prev[q as usize] = p;
        } else {
            self.tail = p;
        }
    }

    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NONE;
        self.next[s as usize] = self.head;
        if self.head != NONE {
            self.prev[self.head as usize] = s;
        }
        self.head = s;
        if self.tail == NONE {
            self.tail = s;
        }
    }

    /// Row `i`, computed by `compute(i, out)` on a miss (into a recycled slot when full).
    pub fn get(
        &mut self,
        i: usize,
        compute: impl FnOnce(usize, &mut DVector<f64>),
    ) -> &DVector<f64> {
        if self.capacity == 0 {
            self.misses += 1;
            compute(i, &mut self.scratch);
            return &self.scratch;
        }
        let s = self.slot_of[i];
        if s != NONE {
            self.hits += 1;
            if self.head != s {
                self.unlink(s);
                self.push_front(s);
            }
            return &self.rows[s as usize];
        }
        self.misses += 1;
        let s = if self.rows.len() < self.capacity {
            self.rows.push(DVector::zeros(self.n));
            self.owner.push(i);
            self.prev.push(NONE);
            self.next.push(NONE);
            (self.rows.len() - 1) as u32
        } else {
            let s = self.tail;
            self.unlink(s);
            self.slot_of[self.owner[s as usize]] = NONE;
            self.owner[s as usize] = i;
            s
        };
        self.slot_of[i] = s;
        self.push_front(s);
        compute(i, &mut self.rows[s as usize]);
        &self.rows[s as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used_row() {
        // Room for two rows of length 4.
        let mut c = RowCache::new(4, 64.0);
        assert_eq!(c.capacity(), 2);
        let fill = |i: usize, out: &mut DVector<f64>| out.fill(i as f64);
        assert_eq!(c.get(0, fill)[0], 0.0);
        assert_eq!(c.get(1, fill)[0], 1.0);
        assert_eq!(c.get(0, fill)[0], 0.0); // hit: 0 becomes the most recent
        assert_eq!(c.get(2, fill)[0], 2.0); // evicts 1
        assert_eq!(c.hits_misses(), (1, 3));
        c.get(0, |_, _| panic!("0 must still be cached"));
        c.get(2, |_, _| panic!("2 must still be cached"));
        let mut computed = false;
        c.get(1, |i, out| {
            computed = true;
            out.fill(i as f64)
        });
        assert!(computed, "1 was evicted");
    }

    #[test]
    fn zero_capacity_computes_every_request() {
        let mut c = RowCache::new(3, 0.0);
        assert_eq!(c.capacity(), 0);
        for i in [0, 0, 2] {
            assert_eq!(c.get(i, |i, out| out.fill(i as f64 + 0.5))[1], i as f64 + 0.5);
        }
        assert_eq!(c.hits_misses(), (0, 3));
    }
}
