
pub mod catalog;
