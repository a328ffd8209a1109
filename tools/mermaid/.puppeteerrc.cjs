// Never download a browser: the tests and docs use Debian's /usr/bin/chromium
// (see puppeteer-config.json), and the network reaches package registries only.
module.exports = { skipDownload: true };
