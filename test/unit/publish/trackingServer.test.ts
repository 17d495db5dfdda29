// Which server and which credentials: MLflow's variables (a token before a user name and password), credentials
// written into the address used and never kept, and addresses that are not a tracking server refused.
import { describe, expect, it } from 'vitest';
import { runUrl, trackingServer } from '../../../electron/core/publish/trackingServer.js';
import { artifactProxyPath } from '../../../electron/core/publish/mlflowClient.js';

describe('the tracking server', () => {
  it('takes a bearer token before a user name and password, as MLflow does', () => {
    const both = trackingServer('http://mlflow.lab:5000/', { MLFLOW_TRACKING_TOKEN: 'tok', MLFLOW_TRACKING_USERNAME: 'ada', MLFLOW_TRACKING_PASSWORD: 'pw' });
    expect(both).toMatchObject({ uri: 'http://mlflow.lab:5000', authorization: 'Bearer tok', credentials: 'token' });
    const basic = trackingServer('http://mlflow.lab:5000', { MLFLOW_TRACKING_USERNAME: 'ada', MLFLOW_TRACKING_PASSWORD: 'p:w' });
    expect(basic.authorization).toBe(`Basic ${Buffer.from('ada:p:w').toString('base64')}`);
    expect(trackingServer('https://mlflow.lab', {})).toMatchObject({ authorization: null, credentials: null });
  });

  it('uses credentials written into the address and keeps the address without them', () => {
    const server = trackingServer('https://ada:s%40cret@mlflow.lab:8443/prefix/?x=1', { MLFLOW_TRACKING_TOKEN: 'ignored' });
    expect(server).toMatchObject({ uri: 'https://mlflow.lab:8443/prefix', credentials: 'basic', user: 'ada' });
    expect(server.authorization).toBe(`Basic ${Buffer.from('ada:s@cret').toString('base64')}`);
  });

  it('refuses what is not an http(s) server, saying what to give', () => {
    expect(() => trackingServer('sqlite:///mlflow.db', {})).toThrow(/MLflow's own stores, not a server/u);
    expect(() => trackingServer('mlflow.lab:5000', {})).toThrow(/is not an http\(s\) address; give the tracking server as http:\/\/HOST:PORT/u);
    expect(() => trackingServer('not a url', {})).toThrow(/not an address; give the tracking server as http:\/\/HOST:PORT/u);
  });

  it("links to a run's page in MLflow's UI and reaches artifacts through the proxy", () => {
    expect(runUrl('http://h:5000', '3', 'abc')).toBe('http://h:5000/#/experiments/3/runs/abc');
    expect(artifactProxyPath('mlflow-artifacts:/3/abc/artifacts', 'tuning-bench/run.json')).toBe(
      '/api/2.0/mlflow-artifacts/artifacts/3/abc/artifacts/tuning-bench/run.json',
    );
    expect(artifactProxyPath('mlflow-artifacts://h:5000/3/abc/artifacts', 'a b.txt')).toBe('/api/2.0/mlflow-artifacts/artifacts/3/abc/artifacts/a%20b.txt');
    expect(() => artifactProxyPath('/srv/mlruns/3/abc/artifacts', 'x')).toThrow(/--serve-artifacts/u);
  });
});
