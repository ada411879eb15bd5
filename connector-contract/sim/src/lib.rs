
pub mod catalog;
pub mod editor;
