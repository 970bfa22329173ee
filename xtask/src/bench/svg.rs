//! bench.svg: grouped horizontal bars, ours beside the official requester, one group per metric
//! that both subjects have. Each group is scaled to its larger value (metrics differ in unit and
//! magnitude), and every bar is labelled with its value and the group with the ratio.
//! Hand-written SVG: a few dozen elements need no plotting library.

use super::{format_value, metrics, Row, Subject};

const WIDTH: u32 = 960;
const LABEL_WIDTH: u32 = 300;
const BAR_AREA: u32 = 470;
const BAR_HEIGHT: u32 = 16;
const GROUP_GAP: u32 = 18;
const TOP: u32 = 64;
const OURS_COLOUR: &str = "#2563eb";
const OFFICIAL_COLOUR: &str = "#ea580c";

/// The chart for `rows`; a placeholder text when no metric has both subjects.
pub fn chart(rows: &[Row]) -> String {
    let pairs: Vec<(&Row, &Row)> = metrics(rows)
        .into_iter()
        .filter_map(|(figure, metric)| {
            let find = |s| rows.iter().find(|r| r.figure == figure && r.metric == metric && r.subject == s);
            Some((find(Subject::Ours)?, find(Subject::Official)?))
        })
        .collect();
    let group_height = 2 * BAR_HEIGHT + 4 + GROUP_GAP;
    let height = TOP + (pairs.len().max(1) as u32) * group_height + 16;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" \
         font-family=\"system-ui, sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n\
         <text x=\"16\" y=\"24\" font-size=\"16\" font-weight=\"600\">cargo xtask bench: mcp-tasks-web vs the official requester</text>\n\
         <text x=\"16\" y=\"44\" fill=\"#555\">each metric scaled to its larger value; lower is better</text>\n\
         <rect x=\"{lx}\" y=\"34\" width=\"12\" height=\"12\" fill=\"{OURS_COLOUR}\"/> <text x=\"{ltx}\" y=\"44\">ours (mcp-tasks-web)</text>\n\
         <rect x=\"{ox}\" y=\"34\" width=\"12\" height=\"12\" fill=\"{OFFICIAL_COLOUR}\"/> <text x=\"{otx}\" y=\"44\">official (ext-tasks + client)</text>\n",
        lx = WIDTH - 380,
        ltx = WIDTH - 364,
        ox = WIDTH - 220,
        otx = WIDTH - 204,
    );
    if pairs.is_empty() {
        svg.push_str(&format!(
            "<text x=\"16\" y=\"{}\" fill=\"#555\">no metric measured for both subjects in this run</text>\n",
            TOP + 16
        ));
    }
    for (i, (ours, official)) in pairs.iter().enumerate() {
        let y = TOP + i as u32 * group_height;
        let max = ours.value.max(official.value);
        let label = format!("{}: {}", ours.figure, ours.metric);
        let ratio = if official.value != 0.0 { format!("{:.2}×", ours.value / official.value) } else { "—".into() };
        svg.push_str(&format!(
            "<text x=\"16\" y=\"{}\">{}</text>\n<text x=\"16\" y=\"{}\" fill=\"#555\">ours ÷ official = {}</text>\n",
            y + BAR_HEIGHT - 3,
            escape(&label),
            y + 2 * BAR_HEIGHT + 1,
            escape(&ratio)
        ));
        for (j, (row, colour)) in [(ours, OURS_COLOUR), (official, OFFICIAL_COLOUR)].into_iter().enumerate() {
            let bar_y = y + j as u32 * (BAR_HEIGHT + 4);
            let width = if max > 0.0 { (row.value / max * f64::from(BAR_AREA)).round().max(1.0) } else { 1.0 };
            svg.push_str(&format!(
                "<rect x=\"{LABEL_WIDTH}\" y=\"{bar_y}\" width=\"{width}\" height=\"{BAR_HEIGHT}\" fill=\"{colour}\"/>\
                 <text x=\"{}\" y=\"{}\">{}</text>\n",
                f64::from(LABEL_WIDTH) + width + 6.0,
                bar_y + BAR_HEIGHT - 3,
                escape(&format_value(row.value, row.unit))
            ));
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// Escapes text for an SVG text node.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_one_group_per_shared_metric() {
        let rows = [
            Row::new("size", Subject::Ours, "client: gzip <9>", 300.0, "B"),
            Row::new("size", Subject::Official, "client: gzip <9>", 150.0, "B"),
            Row::new("size", Subject::Ours, "client + element: gzip", 400.0, "B"),
        ];
        let svg = chart(&rows);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches(&format!("fill=\"{OURS_COLOUR}\"/><text")).count(), 1, "{svg}");
        assert!(svg.contains("client: gzip &lt;9&gt;") && svg.contains("2.00×"), "{svg}");
        assert!(!svg.contains("client + element"), "{svg}");
        assert!(chart(&[]).contains("no metric measured"));
    }
}
