// The class a student is in, kept in a cookie of this browser (a Streamlit v2 component drawn in
// the class block of a student's sidebar, see workbench/classroom.py): a reload opens a new
// Streamlit session, which reads the cookie (st.context.cookies) and rejoins the same class; the
// seat, derived on the server from the browser's HttpOnly owner cookie, is the same, so the
// student's answers stay theirs. The cookie holds the class's code only, no token; it is
// SameSite=Strict and lives as long as the class may stay open.
//
// data: {name, value, seconds}: value "" clears the cookie.

export default function (component) {
  const { data } = component;
  if (!data || !data.name) return undefined;
  const now = document.cookie.split("; ").find((c) => c.startsWith(data.name + "="));
  const have = now ? decodeURIComponent(now.slice(data.name.length + 1)) : "";
  if (data.value && have !== data.value) {
    document.cookie = `${data.name}=${encodeURIComponent(data.value)}; path=/; max-age=${Math.max(60, data.seconds | 0)}; SameSite=Strict`;
  } else if (!data.value && now) {
    document.cookie = `${data.name}=; path=/; max-age=0; SameSite=Strict`;
  }
  return undefined;
}
