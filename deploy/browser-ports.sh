# deploy/browser-ports.sh - sourced by the scripts that choose ports a
# browser (or Node.js's fetch and WebSocket) will connect to.
# browser_refuses PORT succeeds when PORT is one of the Fetch standard's bad
# ports (https://fetch.spec.whatwg.org/#bad-port), which browsers and Node.js
# refuse to connect to without trying: a page's WebSocket to a gate there
# fails with no word from the gate. Only those above 1023 are listed.

BROWSER_BAD_PORTS=" 1719 1720 1723 2049 3659 4045 4190 5060 5061 6000 6566 6665 6666 6667 6668 6669 6679 6697 10080 "

browser_refuses() { [[ $BROWSER_BAD_PORTS == *" $1 "* ]]; }
