//! placeholder
/// Options.
#[derive(Clone, Debug, Default)]
pub struct SvgOptions {}
pub(super) fn render(_t: &super::Trace, _o: &SvgOptions) -> String { String::new() }
