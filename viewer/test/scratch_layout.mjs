import { launch } from './browser.mjs';
import { view } from './harness.mjs';
const browser = await launch();
const server = await view([]);
for (const [w, h] of [[1280, 800], [800, 480]]) {
  for (const path of ['play', 'view', 'race']) {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: w, height: h });
    await page.goto(`${server.url}${path}`);
    await page.waitForTimeout(2500);
    const box = await page.evaluate(() => { const c = document.querySelector('canvas'); const r = c?.getBoundingClientRect(); return r ? [r.width, r.height] : null; });
    console.log(path, w, h, JSON.stringify(box));
    await page.screenshot({ path: `/tmp/${path}-${w}.png` });
    await page.close();
  }
}
server.child.kill();
console.log(JSON.stringify(browser.errors));
await browser.close();
