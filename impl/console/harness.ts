/**
 * A system of real processes with avatar workers, the console beside it, and a page of Debian's Chromium
 * (playwright-core) open on it: what the browser test, the media latency benchmark and the README's
 * screenshot drive.
 */
import { type Browser, type Page, chromium } from 'playwright-core';
import pino from 'pino';
import { type System, type SystemOptions, launchSystem } from '../ops/launch.js';
import { type Console, startConsole } from './server.js';

export const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  // ICE on loopback: host candidates on 127.0.0.1, not hidden behind mDNS names
  '--allow-loopback-in-peer-connection',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--autoplay-policy=no-user-gesture-required',
];

/** A frame the page showed (console.js's viewer log). */
export interface Shown {
  epoch: number;
  seq: number;
  index: number;
  worker: string;
  ptsMs: number;
}
/** The page's viewer log, as `page.evaluate` reads it. */
export interface WithLog {
  dhsched: {
    shown: Shown[];
    dropped: number;
    queued: number;
    firstFrameMs: number[];
    offer(message: ArrayBuffer): void;
  };
}

export interface ConsoleHarness {
  system: System;
  console: Console;
  page: Page;
  /** Types `text` into the page and clicks Say. */
  say(text: string): Promise<void>;
  close(): Promise<void>;
}

export async function openConsole(options: SystemOptions = {}): Promise<ConsoleHarness> {
  const cell = options.cell ?? 'console';
  const system = await launchSystem({
    workers: 2,
    dispatchers: 1,
    capacity: 2,
    ...options,
    cell,
    extraArgs: {
      ...options.extraArgs,
      worker: ['--runtime', 'avatar', ...(options.extraArgs?.worker ?? [])],
    },
  });
  let console_: Console | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await console_?.close();
    await system.stop();
  };
  try {
    console_ = await startConsole({
      listen: '127.0.0.1:0',
      cell,
      dispatch: system.dispatchers.map((d) => d.addr),
      sink: system.sink.addr,
      log: pino({ level: 'silent' }),
      processes: system,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    await page.goto(console_.url);
    const say = async (text: string) => {
      await page.fill('#text', text);
      await page.click('#send');
    };
    return { system, console: console_, page, say, close };
  } catch (err) {
    await close();
    throw err;
  }
}
