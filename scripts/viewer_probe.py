#!/usr/bin/env python3
"""Drives `segue view` in headless Chromium (selenium + chromedriver) and reports what the page drew.

Used by the integration tests (Tests/IntegrationTests/Viewer*Tests.swift) and by scripts/pictures.sh.
Every command prints JSON on stdout; the whole run is bounded by --timeout seconds, and the browser is
always quit on the way out.

  cards URL --index N...        each card's computed style at each replay frame index
  edge URL --index N --navigator NAV
                                a screenshot at that frame: where the `to` card's left edge is
  tabs URL --navigator NAV --transition T [--tabs 2]
                                live: prints {"ready": true}, then, once every tab has the final tick
                                of transition T, the frames each tab received
  timeline URL --index N        a `segue timeline` HTML file: the cursor moved to event N, zoomed 2x,
                                what the stacks panel and the SVG then show
  status URL --text T...        live: prints {"ready": true} once the bar says "connected", then waits for
                                each text in the bar in turn, printing {"seen": T} for each: what the bar
                                said, and whether as a problem
  keys URL --index N --key K...
                                a replay paused at index N (or a file:// timeline at event N): the
                                slider clicked (focused, as a user's click leaves it), then each key
                                pressed; where the page stands after each
  shot URL --out FILE [--index N] [--width W --height H]
                                a PNG screenshot of the page (or of a file:// timeline)
"""
import argparse
import json
import signal
import struct
import sys
import time
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def browser(width, height):
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--force-device-scale-factor=1", "--hide-scrollbars", f"--window-size={width},{height}",
                 "--disable-background-timer-throttling", "--disable-renderer-backgrounding"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, script, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError(f"the page did not get {what} within {timeout} s")


def open_replay(driver, args):
    driver.get(args.url + "#paused")
    wait(driver, "return window.segue && window.segue.ready", args.timeout, "the whole replay")
    for frame in args.frame:
        index = driver.execute_script("return window.segue.indexOfFrame(arguments[0])", frame)
        if index < 0:
            raise ValueError(f"frame {frame} is not one of the replay's frames")
        args.index.append(index)


CARD_STYLE = """
const out = [];
for (const section of document.querySelectorAll('section.navigator')) {
  if (section.hidden) continue;
  const device = section.querySelector('.device');
  const box = device.getBoundingClientRect();
  const name = section.dataset.navigator;
  const cards = [...device.querySelectorAll('.card')].map((c) => {
    const s = getComputedStyle(c);
    return {role: c.dataset.role, screen: c.dataset.screen, transform: s.transform,
            origin: s.transformOrigin, opacity: s.opacity, zIndex: s.zIndex, clipPath: s.clipPath,
            background: s.backgroundColor};
  });
  out.push({navigator: name, frame: window.segue.frame(), index: window.segue.index,
            device: {left: box.left, top: box.top, width: device.clientWidth, height: device.clientHeight},
            geometry: window.segue.geometry(name), cards});
}
return out;
"""


def start(driver, args):
    """Where a replay opened at `#HASH` stands: its index, its frame count and the position line."""
    driver.get(args.url + "#" + args.hash)
    wait(driver, "return window.segue && window.segue.ready", args.timeout, "the whole replay")
    return driver.execute_script(
        "return {index: window.segue.index, frames: window.segue.frameCount,"
        " position: document.getElementById('position').textContent}")


def cards(driver, args):
    open_replay(driver, args)
    result = []
    for index in args.index:
        driver.execute_script("window.segue.seek(arguments[0])", index)
        result.append({"index": index, "navigators": driver.execute_script(CARD_STYLE)})
    return result


def png_pixels(data):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG, without libraries."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), f"unsupported PNG (depth {depth}, color type {color})"
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


def edge(driver, args):
    open_replay(driver, args)
    driver.execute_script("window.segue.seek(arguments[0])", args.index[0])
    state = [n for n in driver.execute_script(CARD_STYLE) if n["navigator"] == args.navigator][0]
    to = [c for c in state["cards"] if c["role"] == "to"][0]
    color = tuple(int(v) for v in to["background"][to["background"].index("(") + 1:-1].split(",")[:3])
    _, _, rows = png_pixels(driver.get_screenshot_as_png())
    device = state["device"]
    y = int(device["top"] + device["height"] * 0.9)
    left = int(round(device["left"]))
    found = None
    for x in range(left, left + int(device["width"])):
        if all(abs(a - b) <= 3 for a, b in zip(rows[y][x], color)):
            found = x
            break
    return {"frame": state["frame"], "device": device, "row": y, "color": color,
            "edge": None if found is None else found - left}


def tabs(driver, args):
    driver.get(args.url)
    handles = [driver.current_window_handle]
    for _ in range(args.tabs - 1):
        driver.switch_to.new_window("tab")
        driver.get(args.url)
        handles.append(driver.current_window_handle)
    for handle in handles:
        driver.switch_to.window(handle)
        wait(driver, f"return window.segue && window.segue.navigators().includes({json.dumps(args.navigator)})",
             args.timeout, f"navigator {args.navigator}")
    print(json.dumps({"ready": True}), flush=True)
    seen = []
    for handle in handles:
        driver.switch_to.window(handle)
        name = json.dumps(args.navigator)
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            if driver.execute_script(f"return window.segue.finalSeen({name}, {args.transition})"):
                break
            time.sleep(0.05)
        frames = driver.execute_script(f"return window.segue.seen({name}, {args.transition})")
        seen.append(frames)
    # A live page has no replay controls: their display as the browser computed it.
    controls = driver.execute_script('return getComputedStyle(document.getElementById("controls")).display')
    return {"tabs": seen, "controls": controls}


def memory(driver, args):
    """What a live tab holds for --navigator once navigator --until appears (made after the rest)."""
    driver.get(args.url)
    name = json.dumps(args.navigator)
    wait(driver, f"return window.segue && window.segue.navigators().includes({name})", args.timeout,
         f"navigator {args.navigator}")
    print(json.dumps({"ready": True}), flush=True)
    wait(driver, f"return window.segue.navigators().includes({json.dumps(args.until)})", args.timeout,
         f"navigator {args.until}")
    return driver.execute_script(f"return window.segue.memory({name})")


def status(driver, args):
    driver.get(args.url)
    wait(driver, "return document.getElementById('status').textContent === 'connected'", args.timeout,
         "a connection")
    print(json.dumps({"ready": True}), flush=True)
    seen = []
    for text in args.text:
        wait(driver, f"return document.getElementById('status').textContent.includes({json.dumps(text)})",
             args.timeout, f"the bar saying {text!r}")
        seen.append(driver.execute_script(
            'const s = document.getElementById("status");'
            ' return {text: s.textContent, problem: s.classList.contains("problem")}'))
        print(json.dumps({"seen": text}), flush=True)
    return {"statuses": seen}


def timeline(driver, args):
    driver.get(args.url)
    wait(driver, "return window.segueTimeline", args.timeout, "its script")
    return driver.execute_script("""
      const t = window.segueTimeline, svg = document.querySelector('#scroll svg');
      const before = Number(svg.getAttribute('width'));
      t.show(arguments[0]);
      t.setZoom(2);
      const line = document.querySelector('line.cursor-line');
      return {label: document.getElementById('cursor-label').textContent,
              stacks: [...document.querySelectorAll('#stacks .nav')].map((n) => n.textContent),
              cursorX: Number(line.getAttribute('x1')), markX: t.data.marks[arguments[0]].x,
              width: before, zoomed: Number(svg.getAttribute('width'))};
    """, args.index[0])


def keys(driver, args):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    timeline_page = args.url.startswith("file://")
    if timeline_page:
        driver.get(args.url)
        wait(driver, "return window.segueTimeline", args.timeout, "its script")
        driver.execute_script("window.segueTimeline.show(arguments[0])", args.index[0])
        slider, where = "cursor", "return Number(document.getElementById('cursor').value)"
    else:
        open_replay(driver, args)
        driver.execute_script("window.segue.seek(arguments[0])", args.index[0])
        slider, where = "scrubber", "return window.segue.index"
    element = driver.find_element(By.ID, slider)
    driver.execute_script("arguments[0].focus()", element)
    positions = [driver.execute_script(where)]
    for key in args.key:
        element.send_keys({"ArrowRight": Keys.ARROW_RIGHT, "ArrowLeft": Keys.ARROW_LEFT}[key])
        time.sleep(0.1)
        positions.append(driver.execute_script(where))
    return {"focused": driver.execute_script("return document.activeElement.id"), "positions": positions}


def shot(driver, args):
    if args.index or args.frame:
        open_replay(driver, args)
        driver.execute_script("window.segue.seek(arguments[0])", args.index[0])
    else:
        driver.get(args.url)
        time.sleep(0.5)
    driver.save_screenshot(args.out)
    return {"out": args.out}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "command", choices=["cards", "edge", "tabs", "status", "timeline", "shot", "start", "memory", "keys"])
    parser.add_argument("url")
    parser.add_argument("--index", type=int, action="append", default=[])
    parser.add_argument("--frame", type=int, action="append", default=[], help="a frame number, for its index")
    parser.add_argument("--navigator", default="main")
    parser.add_argument("--transition", type=int, default=1)
    parser.add_argument("--tabs", type=int, default=2)
    parser.add_argument("--text", action="append", default=[], help="status: a text the bar shows, in turn")
    parser.add_argument("--key", action="append", default=[], help="keys: ArrowRight or ArrowLeft, in turn")
    parser.add_argument("--out")
    parser.add_argument("--hash", default="", help="start: what follows # in the address")
    parser.add_argument("--until", default="done", help="memory: the navigator made last")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()

    def expire(*_):
        raise TimeoutError(f"viewer_probe ran past --timeout {args.timeout} s")

    signal.signal(signal.SIGALRM, expire)
    signal.signal(signal.SIGTERM, expire)
    signal.alarm(int(args.timeout) + 30)
    driver = browser(args.width, args.height)
    try:
        commands = {
            "cards": cards, "edge": edge, "tabs": tabs, "status": status, "timeline": timeline, "shot": shot,
            "start": start, "memory": memory, "keys": keys,
        }
        result = commands[args.command](driver, args)
        print(json.dumps(result), flush=True)
        return 0
    except Exception as error:  # reported to the test, which prints it
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
