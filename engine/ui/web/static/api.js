// The JSON routes of the server: every failure becomes an Error carrying the server's message.

export class ApiError extends Error {
  constructor(message, status, body) {
    super(message);
    this.status = status;
    this.body = body || {};
  }
}

async function answer(response) {
  let body = null;
  try {
    body = await response.json();
  } catch (e) {
    throw new ApiError(`the server answered ${response.status} without a message`, response.status);
  }
  if (!response.ok) throw new ApiError(body.error || `the server answered ${response.status}`, response.status, body);
  return body;
}

export async function getJSON(url) {
  let response;
  try {
    response = await fetch(url, {cache: "no-store"});
  } catch (e) {
    throw new ApiError("the server cannot be reached (is littlego serve still running?)", 0);
  }
  return answer(response);
}

// The secret that littlego serve printed in its address (?token=...): kept for this tab only, sent with
// every request that plays or computes, so that nobody who lacks the address can make the server play.
const TOKEN_KEY = "littlego-token";
const given = new URLSearchParams(location.search).get("token");
if (given) sessionStorage.setItem(TOKEN_KEY, given);

export async function postJSON(url, body) {
  let response;
  try {
    response = await fetch(url, {method: "POST",
                                 headers: {"Content-Type": "application/json",
                                           "X-Littlego-Token": sessionStorage.getItem(TOKEN_KEY) || ""},
                                 body: JSON.stringify(body)});
  } catch (e) {
    throw new ApiError("the server cannot be reached (is littlego serve still running?)", 0);
  }
  return answer(response);
}
