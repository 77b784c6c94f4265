// The store loads better-sqlite3 through this package so that it exists only where the package's
// engines let npm install it: Node lines without node:sqlite (src/store/sqlite-driver.ts).
module.exports = require('better-sqlite3');
