// The top of the page when the class moves (a Streamlit v2 component drawn by the lecturer's console
// and the student's bar, see workbench/class_console.py): st.switch_page keeps the main area's
// scroll, so the lecturer who pressed Start low on the Lessons page, or a student who had scrolled
// down the last step's page, would see the new step's controls and question above the fold.
// data: {step}: the class's step (a change scrolls to the top once).

let shown = null;

export default function (component) {
  const { data } = component;
  if (!data || data.step === shown) return undefined;
  shown = data.step;
  for (const el of [document.querySelector('[data-testid="stMain"]'), document.scrollingElement]) {
    if (el && el.scrollTop) el.scrollTo({ top: 0 });
  }
  return undefined;
}
