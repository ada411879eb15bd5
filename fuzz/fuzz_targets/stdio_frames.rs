#![no_main]
//! See `hera_agent_unity::fuzzing::stdio_frames` for what is exercised and which properties must hold.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    hera_agent_unity::fuzzing::stdio_frames(data);
});
