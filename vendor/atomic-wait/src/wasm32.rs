// Kernel Playground's addition to atomic-wait 1.1.0 (BSD-2-Clause, m-ou-se/atomic-wait): the
// wasm32 threads build (`+atomics`), where faer's rayon backend (spindle) parks its workers.
// `memory.atomic.wait32` traps on a browser's main thread; the threaded build only runs in
// Web Workers (www/mrlsr-worker.js and wasm-bindgen-rayon's pool).
use core::arch::wasm32;
use core::sync::atomic::AtomicU32;

#[inline]
pub fn wait(a: &AtomicU32, expected: u32) {
    // SAFETY: `a` is a live, aligned u32 in the shared linear memory; -1 = no timeout.
    unsafe {
        wasm32::memory_atomic_wait32(a.as_ptr() as *mut i32, expected as i32, -1);
    }
}

#[inline]
pub fn wake_one(ptr: *const AtomicU32) {
    // SAFETY: notify only reads the address; a dangling one wakes nobody.
    unsafe {
        wasm32::memory_atomic_notify(ptr as *mut i32, 1);
    }
}

#[inline]
pub fn wake_all(ptr: *const AtomicU32) {
    // SAFETY: as above.
    unsafe {
        wasm32::memory_atomic_notify(ptr as *mut i32, u32::MAX);
    }
}
