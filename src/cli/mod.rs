//! (module being written; see src/lib.rs for its place in the flow)
