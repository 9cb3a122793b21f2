/** Worker thread: signs a contiguous range of the bench's transfers (see signTransfers). */
import { parentPort, workerData } from "node:worker_threads";
import { senders, signTransfers } from "./chain.js";

interface Job {
  prefix: string;
  senders: number;
  recipients: string[];
  count: number;
  offset: number;
  timestamp: number;
}

const job = workerData as Job;
parentPort!.postMessage(signTransfers(senders(job.senders, job.prefix), job.recipients, job.count, job.timestamp, job.offset));
